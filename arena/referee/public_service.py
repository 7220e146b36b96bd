"""ArenaService: register bots, list games, create, inspect, watch and replay matches."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf import json_format

import engines
from arena.ops import metrics
from arena.protocol import wire
from arena.referee import arguments, requests, spectate
from arena.referee.app import Referee
from arena.referee.auth import bearer, new_token, same_token, token_hash
from arena.referee.clock import Clock
from arena.referee.limits import RateLimiter, clip, peer_address
from arena.referee.stats import bot_stats_message
from arena.referee.watchers import Watcher, WatcherDropped
from arena.storage import botstats
from arena.storage.errors import Conflict, NotFound, StorageError, Unavailable
from arena.storage.rows import MatchRow, MatchStatus
from arena.tournament import entries, ladder, schedules
from arena.tournament import rounds as tournaments
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from engines import EngineError, OptionsError, ReplayMismatch, UnknownGame
from engines.replay import steps

MAX_ERROR_CHARS = 300
NAME_PATTERN = arguments.NAME_PATTERN
ENDED = (MatchStatus.FINISHED, MatchStatus.ABORTED)
"""Statuses after which a match's seed and every seat's actions are public."""
STATUSES = {
    "pending": common_pb2.MATCH_STATUS_PENDING,
    "running": common_pb2.MATCH_STATUS_RUNNING,
    "finished": common_pb2.MATCH_STATUS_FINISHED,
    "aborted": common_pb2.MATCH_STATUS_ABORTED,
}
STATUS_NAMES = {v: k for k, v in STATUSES.items()}
TOURNAMENT_STATUSES = {
    "scheduled": arena_pb2.TOURNAMENT_STATUS_SCHEDULED,
    "running": arena_pb2.TOURNAMENT_STATUS_RUNNING,
    "finished": arena_pb2.TOURNAMENT_STATUS_FINISHED,
    "cancelled": arena_pb2.TOURNAMENT_STATUS_CANCELLED,
}
TOURNAMENT_STATUS_NAMES = {v: k for k, v in TOURNAMENT_STATUSES.items()}
Context = grpc.aio.ServicerContext[Any, Any]


T = TypeVar("T")

# Tournament formats and rating systems: wire enum value <-> stored name.
FORMATS = {0: "swiss", 1: "swiss", 2: "round_robin"}
FORMAT_CODES = {"swiss": 1, "round_robin": 2}
RATING_SYSTEMS = {0: "elo", 1: "elo", 2: "openskill"}
RATING_SYSTEM_CODES = {"elo": 1, "openskill": 2}


async def _fail(context: Context, method: str, code: grpc.StatusCode, message: str) -> NoReturn:
    metrics.RPC_ERRORS.labels(method, code.name).inc()
    # Messages may quote the caller's input: never send back more than a short prefix of it.
    await context.abort(code, clip(message, MAX_ERROR_CHARS))
    raise AssertionError("abort returned")  # pragma: no cover


R = TypeVar("R")
Rpc = Callable[[Any, Any, Context], Awaitable[R]]


def _checked(rpc: Rpc[R]) -> Rpc[R]:
    """Answer `INVALID_ARGUMENT` for an `arguments.InvalidArgument` raised by a unary RPC."""

    @functools.wraps(rpc)
    async def wrapper(self: Any, request: Any, context: Context) -> R:
        try:
            return await rpc(self, request, context)
        except arguments.InvalidArgument as exc:
            await _fail(context, rpc.__name__, grpc.StatusCode.INVALID_ARGUMENT, str(exc))

    return wrapper


class PublicService(arena_pb2_grpc.ArenaServiceServicer):
    """The public and admin API."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.db = referee.db
        self.registrations = RateLimiter(referee.config.limits.registrations)

    async def _admin(self, context: Context, method: str) -> None:
        token = bearer(tuple(context.invocation_metadata() or ()))
        if token is None:
            await _fail(
                context,
                method,
                grpc.StatusCode.UNAUTHENTICATED,
                "this call needs `authorization: Bearer <admin token>` metadata",
            )
        if not same_token(token or "", self.referee.admin_token):
            await _fail(context, method, grpc.StatusCode.PERMISSION_DENIED, "wrong admin token")

    @_checked
    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: Context
    ) -> arena_pb2.RegisterBotResponse:
        await self._may_register(context)
        arguments.bot_name("name", request.name)
        token = new_token()
        try:
            bot_id = await self.db.create_bot(request.name, token_hash(token))
        except Conflict:
            await _fail(
                context,
                "RegisterBot",
                grpc.StatusCode.ALREADY_EXISTS,
                f"a bot named {request.name!r} already exists",
            )
        except Unavailable as exc:
            await _fail(context, "RegisterBot", grpc.StatusCode.UNAVAILABLE, str(exc))
        return arena_pb2.RegisterBotResponse(bot_id=bot_id, name=request.name, token=token)

    async def _may_register(self, context: Context) -> None:
        """Admins may always register; others only if registration is open, at a bounded rate."""
        token = bearer(tuple(context.invocation_metadata() or ()))
        if token is not None and same_token(token, self.referee.admin_token):
            return
        if not self.referee.config.limits.open_registration:
            await _fail(
                context,
                "RegisterBot",
                grpc.StatusCode.PERMISSION_DENIED,
                "registration is closed on this arena: ask its operator to register your bot",
            )
        if not self.registrations.take(peer_address(context.peer())):
            metrics.RATE_LIMITED.labels("register").inc()
            await _fail(
                context,
                "RegisterBot",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too many registrations from your address; wait a minute before trying again",
            )

    async def ListGames(
        self, request: arena_pb2.ListGamesRequest, context: Context
    ) -> arena_pb2.ListGamesResponse:
        games = []
        for name in engines.names():
            rules = engines.get(name)
            games.append(
                arena_pb2.Game(
                    name=name,
                    title=rules.title,
                    rules_version=rules.version,
                    seat_counts=list(rules.seat_counts),
                    options=[
                        arena_pb2.GameOption(
                            name=o.name,
                            type=o.type.__name__,
                            default_json=json.dumps(o.default),
                            description=o.description,
                        )
                        for o in rules.options_schema
                    ],
                )
            )
        return arena_pb2.ListGamesResponse(games=games)

    @_checked
    async def CreateMatch(
        self, request: arena_pb2.CreateMatchRequest, context: Context
    ) -> arena_pb2.Match:
        await self._admin(context, "CreateMatch")
        self._check_match_request(request)
        code, message = grpc.StatusCode.INVALID_ARGUMENT, ""
        try:
            clock = arguments.clock(
                self.referee.config.default_clock,
                request.clock if request.HasField("clock") else None,
            )
            options = json_format.MessageToDict(request.options)
            options = {
                k: int(v) if isinstance(v, float) and v.is_integer() else v
                for k, v in options.items()
            }
            timeout = (
                arguments.duration(
                    "connect_timeout", request.connect_timeout, arguments.CONNECT_TIMEOUT
                ).total_seconds()
                if request.HasField("connect_timeout")
                else None
            )
            tournament = None
            if request.tournament_id:
                tournament = (request.tournament_id, request.round_no, request.table_no)
            match_id = await self.referee.create_match(
                request.game,
                list(request.bots),
                options,
                clock,
                request.seed,
                timeout,
                tournament,
            )
            return await self._match(match_id, context, "CreateMatch")
        except arguments.InvalidArgument:
            raise
        except UnknownGame as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc)
        except LookupError as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc.args[0])
        except ReplayMismatch as exc:  # a stored match that cannot resume: it is now aborted
            code, message = grpc.StatusCode.FAILED_PRECONDITION, f"aborted: {exc}"
        except (OptionsError, EngineError, ValueError) as exc:
            message = str(exc)
        except NotFound as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc)
        except Conflict as exc:
            code, message = grpc.StatusCode.FAILED_PRECONDITION, str(exc)
        except StorageError as exc:
            code, message = grpc.StatusCode.UNAVAILABLE, str(exc)
        await _fail(context, "CreateMatch", code, message)

    def _check_match_request(self, request: arena_pb2.CreateMatchRequest) -> None:
        arguments.text("game", request.game)
        for index, name in enumerate(request.bots):
            arguments.bot_name(f"bots[{index}]", name)
        if request.tournament_id:
            arguments.positive_id("tournament_id", request.tournament_id)
            arguments.integer("round_no", request.round_no, 1, arguments.TOURNAMENT_ROUNDS[1])
            arguments.integer("table_no", request.table_no, 1, 10_000)
        elif request.round_no or request.table_no:
            raise arguments.InvalidArgument(
                "round_no", "round_no and table_no are set only with a tournament_id"
            )

    async def _match(self, match_id: int, context: Context, method: str) -> arena_pb2.Match:
        return (await self._match_and_row(match_id, context, method))[0]

    async def _match_and_row(
        self, match_id: int, context: Context, method: str
    ) -> tuple[arena_pb2.Match, MatchRow]:
        arguments.positive_id("match_id", match_id)
        try:
            row = await self.db.match(match_id)
            if row is None:
                await _fail(context, method, grpc.StatusCode.NOT_FOUND, f"no match {match_id}")
            return (await self.match_messages([row]))[0], row
        except StorageError as exc:
            await _fail(context, method, grpc.StatusCode.UNAVAILABLE, str(exc))

    async def match_messages(self, rows: Sequence[MatchRow]) -> list[arena_pb2.Match]:
        """The wire forms of stored matches, with decisions and rating changes from storage."""
        ids = [row.id for row in rows]
        counts = await self.db.decision_counts(ids)
        changes = await self.db.rating_changes(ids)
        return [self.match_message(row, counts[row.id], changes) for row in rows]

    def match_message(
        self, row: MatchRow, decisions: int, changes: dict[tuple[int, int], float]
    ) -> arena_pb2.Match:
        """The wire form of a stored match, with live progress if it runs here."""
        runner = self.referee.runners.get(row.id)
        aborted = row.status is MatchStatus.ABORTED
        termination = "aborted" if aborted else row.termination or ""
        out = arena_pb2.Match(
            match_id=row.id,
            game=row.game,
            status=STATUSES.get(row.status.value, common_pb2.MATCH_STATUS_UNSPECIFIED),
            termination=requests.TERMINATIONS.get(termination, 0),  # type: ignore[arg-type]
            decisions=max(decisions, len(runner.moves) if runner else 0),
            tournament_id=row.tournament_id or 0,
            options=requests.struct_of(dict(row.options)),
            abort_reason=(row.termination or "") if aborted else "",
        )
        out.created_at.FromDatetime(row.created_at)
        if row.finished_at is not None:
            out.finished_at.FromDatetime(row.finished_at)
        for seat in row.seating:
            out.seats.append(
                common_pb2.SeatResult(
                    seat=seat.seat,
                    bot=seat.bot_name,
                    rank=seat.rank or 0,
                    score=seat.score or 0.0,
                    strikes=seat.strikes,
                    forfeited=seat.forfeited,
                    rating_change=changes.get((row.id, seat.bot_id), 0.0),
                )
            )
        return out

    @_checked
    async def GetMatch(
        self, request: arena_pb2.GetMatchRequest, context: Context
    ) -> arena_pb2.Match:
        return await self._match(request.match_id, context, "GetMatch")

    @_checked
    async def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: Context
    ) -> arena_pb2.ListMatchesResponse:
        limit = arguments.limit("limit", request.limit, 50, 500)
        status = None
        if request.status:
            status = MatchStatus(arguments.choice("status", request.status, STATUS_NAMES))
        if request.game:
            arguments.text("game", request.game)
        if request.bot:
            arguments.bot_name("bot", request.bot)
        try:
            bot_id = None
            if request.bot:
                bot = await self.db.bot_by_name(request.bot)
                if bot is None:
                    await _fail(
                        context,
                        "ListMatches",
                        grpc.StatusCode.NOT_FOUND,
                        f"unknown bot {request.bot!r}",
                    )
                bot_id = bot.id
            rows = await self.db.list_matches(
                status=status, game=request.game or None, bot_id=bot_id, limit=limit
            )
            return arena_pb2.ListMatchesResponse(matches=await self.match_messages(rows))
        except StorageError as exc:
            await _fail(context, "ListMatches", grpc.StatusCode.UNAVAILABLE, str(exc))

    async def WatchMatch(
        self, request: arena_pb2.WatchMatchRequest, context: Context
    ) -> AsyncIterator[arena_pb2.MatchEvent]:
        try:
            arguments.positive_id("match_id", request.match_id)
            asked = (
                arguments.duration("delay", request.delay, arguments.WATCH_DELAY)
                if request.HasField("delay")
                else timedelta(0)
            )
        except arguments.InvalidArgument as exc:
            await _fail(context, "WatchMatch", grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        # Spectators never see a running match sooner than the referee's spectator delay.
        delay = max(asked, self.referee.config.spectator_delay).total_seconds()
        runner = self.referee.runners.get(request.match_id)
        if runner is None:
            async for event in self._watch_stored(request.match_id, context, delay):
                yield event
            return
        # Bounded: a spectator that does not read (or waits out a long delay) is dropped.
        watcher = Watcher(runner.steps, self.referee.config.limits.watch_queue_steps)
        runner.watchers.append(watcher)
        try:
            while (step := await watcher.next()) is not None:
                wait = step.at + delay - time.monotonic()
                if wait > 0:
                    await watcher.pause(wait)
                yield self._event(
                    runner.match_id, runner.game, step.decision, step.label, step.view
                )
        except WatcherDropped as exc:
            await _fail(context, "WatchMatch", grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        finally:
            runner.watchers.remove(watcher)
        final = await self._match(request.match_id, context, "WatchMatch")
        yield arena_pb2.MatchEvent(
            match_id=request.match_id, decision=len(runner.moves) - 1, label="end", final=final
        )

    async def _watch_stored(
        self, match_id: int, context: Context, delay: float
    ) -> AsyncIterator[arena_pb2.MatchEvent]:
        """The stored steps of a match not hosted here; of one still running, only those
        logged at least `delay` seconds ago."""
        final, row = await self._match_and_row(match_id, context, "WatchMatch")
        try:
            record = await self.db.record(match_id)
            if row.status not in ENDED:
                now, lag = datetime.now(UTC), timedelta(seconds=delay)
                logged = await self.db.decisions(match_id)
                shown = sum(
                    1
                    for d in logged
                    if d.created_at is not None and spectate.is_revealed(d.created_at, lag, now)
                )
                record = dataclasses.replace(record, moves=record.moves[:shown])
        except StorageError as exc:
            await _fail(context, "WatchMatch", grpc.StatusCode.UNAVAILABLE, str(exc))
        rules = engines.get(record.game)
        last = None
        replayed = steps(rules, record)
        while True:
            try:
                step = next(replayed, None)
            except EngineError as exc:  # e.g. a match played under an older rules version
                await _fail(
                    context,
                    "WatchMatch",
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"match {match_id} cannot be replayed here: {exc}",
                )
            if step is None:
                break
            view = spectate.public_view(rules, step.after)
            last = step.decision.number
            yield self._event(match_id, rules.name, step.decision.number, step.decision.label, view)
        yield arena_pb2.MatchEvent(
            match_id=match_id, decision=last if last is not None else -1, label="end", final=final
        )

    def _event(
        self, match_id: int, game: str, number: int, label: str, view: Any
    ) -> arena_pb2.MatchEvent:
        event = arena_pb2.MatchEvent(
            match_id=match_id, decision=number, label=label, view_json=wire.compact(view)
        )
        with contextlib.suppress(wire.WireError):  # the JSON form is always there
            event.view.CopyFrom(wire.view_message(game, view))
        return event

    @_checked
    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: Context
    ) -> arena_pb2.Replay:
        match, row = await self._match_and_row(request.match_id, context, "GetReplay")
        if row.status not in ENDED:
            # The seed and every seat's actions rebuild every private hand: public only at the end.
            await _fail(
                context,
                "GetReplay",
                grpc.StatusCode.FAILED_PRECONDITION,
                f"match {request.match_id} is {row.status.value}; its replay (seed and every "
                "seat's actions) is published when it ends",
            )
        try:
            record = await self.db.record(request.match_id)
        except StorageError as exc:
            await _fail(context, "GetReplay", grpc.StatusCode.UNAVAILABLE, str(exc))
        return arena_pb2.Replay(
            match_id=request.match_id, record_json=json.dumps(record.to_json()), match=match
        )

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: Context
    ) -> arena_pb2.ListBotsResponse:
        out = arena_pb2.ListBotsResponse()
        for session in self.referee.hub.sessions():
            entry = out.bots.add(
                bot_id=session.bot_id,
                name=session.bot_name,
                active_matches=len(self.referee.matches_of(session.bot_id)),
            )
            entry.connected_at.FromSeconds(int(session.connected_at))
        return out

    # -- tournaments -----------------------------------------------------------------------------
    @_checked
    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        await self._admin(context, "CreateTournament")
        arguments.text("name", request.name, required=False)
        arguments.text("game", request.game)
        for index, name in enumerate(request.bots):
            arguments.bot_name(f"bots[{index}]", name)
        # 0 = chosen from the field size (tournament_setup.default_rounds)
        arguments.integer("rounds", request.rounds, 0, arguments.TOURNAMENT_ROUNDS[1])
        format_name = arguments.choice("format", request.format, FORMATS)
        system_name = arguments.choice("rating_system", request.rating_system, RATING_SYSTEMS)
        arguments.integer("forfeit_limit", request.forfeit_limit, *arguments.FORFEIT_LIMIT)
        code, message = grpc.StatusCode.INVALID_ARGUMENT, ""
        try:
            clock = arguments.clock(
                self.referee.config.default_clock,
                request.clock if request.HasField("clock") else None,
            )
            options = json_format.MessageToDict(request.options)
            options = {
                k: int(v) if isinstance(v, float) and v.is_integer() else v
                for k, v in options.items()
            }
            starts = (
                arguments.timestamp("starts_at", request.starts_at)
                if request.HasField("starts_at")
                else None
            )
            tournament_id = await tournaments.create_tournament(
                self.db,
                name=request.name,
                game=request.game,
                bot_names=list(request.bots),
                table_size=request.table_size,
                rounds=request.rounds,
                clock=clock,
                options=options,
                starts_at=starts,
                seed=request.seed,
                format=format_name,
                rating_system=system_name,
                forfeit_limit=request.forfeit_limit or None,
            )
            return await self._tournament(tournament_id, context, "CreateTournament")
        except arguments.InvalidArgument:
            raise
        except UnknownGame as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc)
        except LookupError as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc.args[0])
        except (EngineError, ValueError) as exc:
            message = str(exc)
        except Unavailable as exc:  # only this one tells the client that a retry may succeed
            code, message = grpc.StatusCode.UNAVAILABLE, str(exc)
        except StorageError as exc:  # refused by a constraint: retrying cannot help
            code, message = grpc.StatusCode.FAILED_PRECONDITION, str(exc)
        await _fail(context, "CreateTournament", code, message)

    async def _tournament(
        self, tournament_id: int, context: Context, method: str, with_standings: bool = True
    ) -> arena_pb2.Tournament:
        try:
            info = await tournaments.tournament(self.db, tournament_id)
            if info is None:
                await _fail(
                    context, method, grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id}"
                )
            assert info is not None
            return await self.tournament_message(info, with_standings)
        except StorageError as exc:
            await _fail(context, method, grpc.StatusCode.UNAVAILABLE, str(exc))

    async def tournament_message(
        self, info: tournaments.TournamentRow, with_standings: bool
    ) -> arena_pb2.Tournament:
        """The wire form of a stored tournament."""
        done, total = await tournaments.progress(self.db, info.id)
        out = arena_pb2.Tournament(
            tournament_id=info.id,
            name=info.name,
            game=info.game,
            status=TOURNAMENT_STATUSES[info.status.value],
            table_size=info.table_size,
            rounds=info.rounds,
            current_round=info.current_round,
            tables=total,
            tables_finished=done,
            clock=Clock.from_json(dict(info.clock)).to_proto(),
            format=FORMAT_CODES[info.format],  # type: ignore[arg-type]
            rating_system=RATING_SYSTEM_CODES[info.rating_system],  # type: ignore[arg-type]
        )
        out.starts_at.FromDatetime(info.starts_at)
        if with_standings:
            for row in await tournaments.standings_of(self.db, info.id):
                out.standings.add(
                    position=row.position,
                    bot=row.bot,
                    score=row.score,
                    tiebreak=row.tiebreak,
                    rating=row.rating,
                    byes=row.byes,
                    rounds_played=row.rounds_played,
                    withdrawn=row.withdrawn,
                )
        return out

    @_checked
    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: Context
    ) -> arena_pb2.ListTournamentsResponse:
        status = None
        if request.status:
            status = arguments.choice("status", request.status, TOURNAMENT_STATUS_NAMES)
        limit = arguments.limit("limit", request.limit, 50, 500)
        try:
            rows = await tournaments.list_tournaments(self.db, status, limit)
            return arena_pb2.ListTournamentsResponse(
                tournaments=[await self.tournament_message(r, False) for r in rows]
            )
        except StorageError as exc:
            await _fail(context, "ListTournaments", grpc.StatusCode.UNAVAILABLE, str(exc))

    @_checked
    async def GetTournament(
        self, request: arena_pb2.GetTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        arguments.positive_id("tournament_id", request.tournament_id)
        return await self._tournament(request.tournament_id, context, "GetTournament")

    @_checked
    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: Context
    ) -> arena_pb2.Leaderboard:
        limit = arguments.limit("limit", request.limit, 20, 500)
        arguments.text("game", request.game)
        if request.game not in engines.names():
            await _fail(
                context,
                "GetLeaderboard",
                grpc.StatusCode.NOT_FOUND,
                f"unknown game {request.game!r}; known games: {', '.join(engines.names())}",
            )
        system = arguments.choice("rating_system", request.rating_system, RATING_SYSTEMS)
        try:
            rows = await tournaments.leaderboard(self.db, request.game, limit, system)
        except StorageError as exc:
            await _fail(context, "GetLeaderboard", grpc.StatusCode.UNAVAILABLE, str(exc))
        board = arena_pb2.Leaderboard(
            game=request.game,
            rating_system=RATING_SYSTEM_CODES[system],  # type: ignore[arg-type]
        )
        for i, row in enumerate(rows, start=1):
            board.entries.add(
                position=i,
                bot=row["name"],
                rating=row["rating"],
                games=row["games"],
                mu=row.get("mu", 0.0),
                sigma=row.get("sigma", 0.0),
            )
        return board

    @_checked
    async def GetBotStats(
        self, request: arena_pb2.GetBotStatsRequest, context: Context
    ) -> arena_pb2.BotStats:
        arguments.bot_name("bot", request.bot)
        limit = arguments.limit("problems", request.problems, default=10, maximum=100)
        if request.game and request.game not in engines.names():
            await _fail(
                context,
                "GetBotStats",
                grpc.StatusCode.NOT_FOUND,
                f"unknown game {request.game!r}; known games: {', '.join(engines.names())}",
            )
        try:
            stats = await botstats.bot_stats(self.db, request.bot, problems=limit)
        except StorageError as exc:
            await _fail(context, "GetBotStats", grpc.StatusCode.UNAVAILABLE, str(exc))
        if stats is None:
            await _fail(
                context, "GetBotStats", grpc.StatusCode.NOT_FOUND, f"unknown bot {request.bot!r}"
            )
        return bot_stats_message(stats, request.game or None)

    @_checked
    async def WithdrawEntrant(
        self, request: arena_pb2.ChangeEntrantRequest, context: Context
    ) -> arena_pb2.EntrantChange:
        return await self._change_entrant(request, context, "WithdrawEntrant", entries.withdraw)

    @_checked
    async def EnterEntrant(
        self, request: arena_pb2.ChangeEntrantRequest, context: Context
    ) -> arena_pb2.EntrantChange:
        return await self._change_entrant(request, context, "EnterEntrant", entries.enter)

    async def _change_entrant(
        self, request: arena_pb2.ChangeEntrantRequest, context: Context, method: str, change: Any
    ) -> arena_pb2.EntrantChange:
        await self._admin(context, method)
        arguments.positive_id("tournament_id", request.tournament_id)
        arguments.bot_name("bot", request.bot)
        try:
            done = await change(self.db, request.tournament_id, request.bot)
            return arena_pb2.EntrantChange(
                tournament_id=done.tournament_id, bot=done.bot, round_no=done.round_no
            )
        except LookupError as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc.args[0])
        except ValueError as exc:
            code, message = grpc.StatusCode.FAILED_PRECONDITION, str(exc)
        except StorageError as exc:
            code, message = grpc.StatusCode.UNAVAILABLE, str(exc)
        await _fail(context, method, code, message)

    # -- schedules -------------------------------------------------------------------------------
    @_checked
    async def CreateSchedule(
        self, request: arena_pb2.CreateScheduleRequest, context: Context
    ) -> arena_pb2.Schedule:
        await self._admin(context, "CreateSchedule")
        arguments.text("name", request.name)
        arguments.text("game", request.game)
        for index, name in enumerate(request.bots):
            arguments.bot_name(f"bots[{index}]", name)
        arguments.integer("rounds", request.rounds, *arguments.SCHEDULE_ROUNDS)
        format_name = arguments.choice("format", request.format, FORMATS)
        system_name = arguments.choice("rating_system", request.rating_system, RATING_SYSTEMS)
        every = arguments.duration("every", request.every, arguments.SCHEDULE_EVERY)
        first = (
            arguments.timestamp("first_run", request.first_run)
            if request.HasField("first_run")
            else datetime.now(UTC)
        )
        clock = arguments.clock(
            self.referee.config.default_clock,
            request.clock if request.HasField("clock") else None,
        )

        async def create() -> arena_pb2.Schedule:
            schedule_id = await schedules.create_schedule(
                self.db,
                name=request.name,
                game=request.game,
                table_size=request.table_size,
                every=every,
                first_run=first,
                rounds=request.rounds,
                bot_names=list(request.bots) or None,
                format=format_name,
                rating_system=system_name,
                clock=clock,
                options=json_format.MessageToDict(request.options),
            )
            return await self._schedule(schedule_id)

        return await self._schedule_call(context, "CreateSchedule", create, admin=False)

    async def ListSchedules(
        self, request: arena_pb2.ListSchedulesRequest, context: Context
    ) -> arena_pb2.ListSchedulesResponse:
        async def listing() -> arena_pb2.ListSchedulesResponse:
            return arena_pb2.ListSchedulesResponse(
                schedules=[schedule_message(s) for s in await schedules.list_schedules(self.db)]
            )

        return await self._schedule_call(context, "ListSchedules", listing, admin=False)

    @_checked
    async def PauseSchedule(
        self, request: arena_pb2.PauseScheduleRequest, context: Context
    ) -> arena_pb2.Schedule:
        await self._admin(context, "PauseSchedule")
        arguments.positive_id("schedule_id", request.schedule_id)

        async def change() -> arena_pb2.Schedule:
            await schedules.pause(self.db, request.schedule_id, paused=not request.resume)
            return await self._schedule(request.schedule_id)

        return await self._schedule_call(context, "PauseSchedule", change, admin=False)

    @_checked
    async def DeleteSchedule(
        self, request: arena_pb2.DeleteScheduleRequest, context: Context
    ) -> arena_pb2.DeleteScheduleResponse:
        await self._admin(context, "DeleteSchedule")
        arguments.positive_id("schedule_id", request.schedule_id)

        async def remove() -> arena_pb2.DeleteScheduleResponse:
            await schedules.delete(self.db, request.schedule_id)
            return arena_pb2.DeleteScheduleResponse()

        return await self._schedule_call(context, "DeleteSchedule", remove, admin=False)

    async def _schedule(self, schedule_id: int) -> arena_pb2.Schedule:
        found = [s for s in await schedules.list_schedules(self.db) if s.id == schedule_id]
        if not found:
            raise LookupError(f"no schedule {schedule_id}")
        return schedule_message(found[0])

    async def _schedule_call(
        self, context: Context, method: str, call: Callable[[], Awaitable[T]], admin: bool
    ) -> T:
        if admin:
            await self._admin(context, method)
        try:
            return await call()
        except UnknownGame as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc)
        except LookupError as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc.args[0])
        except (EngineError, ValueError) as exc:
            code, message = grpc.StatusCode.INVALID_ARGUMENT, str(exc)
        except Conflict:
            code, message = grpc.StatusCode.ALREADY_EXISTS, "a schedule of that name exists"
        except StorageError as exc:
            code, message = grpc.StatusCode.UNAVAILABLE, str(exc)
        await _fail(context, method, code, message)

    # -- ladders ---------------------------------------------------------------------------------
    @_checked
    async def StartLadder(
        self, request: arena_pb2.StartLadderRequest, context: Context
    ) -> arena_pb2.Ladder:
        await self._admin(context, "StartLadder")
        arguments.text("game", request.game)
        concurrency = (
            arguments.integer("concurrency", request.concurrency, *arguments.LADDER_CONCURRENCY)
            or 1
        )
        clock = arguments.clock(
            self.referee.config.default_clock,
            request.clock if request.HasField("clock") else None,
        )
        try:
            await ladder.start(self.db, request.game, request.table_size, concurrency, clock)
            return arena_pb2.Ladder(
                game=request.game,
                table_size=request.table_size,
                concurrency=concurrency,
                active=True,
            )
        except UnknownGame as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc)
        except (EngineError, ValueError) as exc:
            code, message = grpc.StatusCode.INVALID_ARGUMENT, str(exc)
        except StorageError as exc:
            code, message = grpc.StatusCode.UNAVAILABLE, str(exc)
        await _fail(context, "StartLadder", code, message)

    @_checked
    async def StopLadder(
        self, request: arena_pb2.StopLadderRequest, context: Context
    ) -> arena_pb2.Ladder:
        await self._admin(context, "StopLadder")
        arguments.text("game", request.game)
        try:
            await ladder.stop(self.db, request.game)
            return arena_pb2.Ladder(game=request.game, active=False)
        except LookupError as exc:
            code, message = grpc.StatusCode.NOT_FOUND, str(exc.args[0])
        except StorageError as exc:
            code, message = grpc.StatusCode.UNAVAILABLE, str(exc)
        await _fail(context, "StopLadder", code, message)


def schedule_message(s: schedules.Schedule) -> arena_pb2.Schedule:
    """The wire form of a stored schedule."""
    out = arena_pb2.Schedule(
        schedule_id=s.id,
        name=s.name,
        game=s.game,
        bots=list(s.bot_names or ()),
        table_size=s.table_size,
        rounds=s.rounds,
        format=FORMAT_CODES[s.format],  # type: ignore[arg-type]
        rating_system=RATING_SYSTEM_CODES[s.rating_system],  # type: ignore[arg-type]
        paused=s.paused,
        editions=s.editions,
    )
    out.every.FromTimedelta(s.every)
    out.next_run.FromDatetime(s.next_run)
    return out
