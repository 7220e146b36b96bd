"""The bot and game RPCs of the public API: register and list bots, their stats and standings."""

from __future__ import annotations

import json
import logging

import grpc

import engines
from arena.ops import metrics
from arena.referee import arguments, dispatch
from arena.referee.app import Referee
from arena.referee.auth import new_token, token_hash
from arena.referee.guard import CALLER
from arena.referee.limits import RateLimiter, peer_address
from arena.referee.public_forms import RATING_SYSTEM_CODES, RATING_SYSTEMS
from arena.referee.rpc import Context, checked, fail
from arena.referee.stats import bot_stats_message
from arena.storage import botstats
from arena.storage.errors import Conflict, StorageError, Unavailable
from arena.tournament import rounds as tournaments
from arena.v1 import arena_pb2

log = logging.getLogger(__name__)


class BotApi:
    """RegisterBot, ListBots, ListGames, GetBotStats and GetLeaderboard."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.db = referee.db
        self.registrations = RateLimiter(referee.config.limits.registrations)

    @checked
    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: Context
    ) -> arena_pb2.RegisterBotResponse:
        """Register a bot and hand back its token (shown once, stored only as a digest)."""
        await self.may_register(context)
        arguments.new_bot_name("name", request.name)
        token = new_token()
        try:
            owner = CALLER.get().account_id  # a bot registered with an account's key is its
            bot_id = await self.db.create_bot(request.name, token_hash(token), owner)
        except Conflict:
            await fail(
                context,
                "RegisterBot",
                grpc.StatusCode.ALREADY_EXISTS,
                f"a bot named {request.name!r} already exists",
            )
        except Unavailable as exc:
            await fail(context, "RegisterBot", grpc.StatusCode.UNAVAILABLE, str(exc))
        return arena_pb2.RegisterBotResponse(bot_id=bot_id, name=request.name, token=token)

    async def may_register(self, context: Context) -> None:
        """Admins may always register; accounts and (if registration is open) anyone else at a
        bounded rate per address."""
        caller = CALLER.get()
        if caller.is_admin:
            return
        if not self.referee.config.limits.open_registration and not caller.is_account:
            await fail(
                context,
                "RegisterBot",
                grpc.StatusCode.PERMISSION_DENIED,
                "registration is closed on this arena: register with an account's key "
                "(`arena login`), or ask its operator to create your account",
            )
        if not self.registrations.take(peer_address(context.peer())):
            metrics.RATE_LIMITED.labels("register").inc()
            await fail(
                context,
                "RegisterBot",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too many registrations from your address; wait a minute before trying again",
            )

    async def ListGames(
        self, request: arena_pb2.ListGamesRequest, context: Context
    ) -> arena_pb2.ListGamesResponse:
        """Every game this arena hosts, with its seat counts and options."""
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

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: Context
    ) -> arena_pb2.ListBotsResponse:
        """The bots connected to any live referee, with their unfinished matches."""
        name = self.referee.config.host
        local = {s.bot_id: s for s in self.referee.hub.sessions()}
        found = {b: (name, s.bot_name) for b, s in local.items()}
        active = {b: len(dispatch.matches_of(self.referee.runners, b)) for b in local}
        cluster = self.referee.cluster
        if cluster is not None:
            try:  # the others' bots, and matches hosted anywhere
                everyone = await cluster.registry.everyone()
                found.update((b, (p.referee, p.bot_name)) for b, p in everyone.items())
                active = await self.db.active_match_counts(sorted(found))
            except Exception as exc:  # Redis or the database down: this referee's bots only
                log.warning("ListBots lists this referee's bots only: %s", exc)
        out = arena_pb2.ListBotsResponse()
        for bot_id, (referee, bot_name) in sorted(found.items(), key=lambda f: f[1][1]):
            entry = out.bots.add(
                bot_id=bot_id, name=bot_name, active_matches=active.get(bot_id, 0), referee=referee
            )
            if bot_id in local:
                entry.connected_at.FromSeconds(int(local[bot_id].connected_at))
        return out

    @checked
    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: Context
    ) -> arena_pb2.Leaderboard:
        """The best-rated bots of a game under one rating system."""
        limit = arguments.limit("limit", request.limit, 20, 500)
        arguments.text("game", request.game)
        await self.known_game(context, "GetLeaderboard", request.game)
        system = arguments.choice("rating_system", request.rating_system, RATING_SYSTEMS)
        try:
            rows = await tournaments.leaderboard(self.db, request.game, limit, system)
        except StorageError as exc:
            await fail(context, "GetLeaderboard", grpc.StatusCode.UNAVAILABLE, str(exc))
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

    @checked
    async def GetBotStats(
        self, request: arena_pb2.GetBotStatsRequest, context: Context
    ) -> arena_pb2.BotStats:
        """A bot's results, strikes and recent problems, over every game or one."""
        arguments.bot_name("bot", request.bot)
        limit = arguments.limit("problems", request.problems, default=10, maximum=100)
        if request.game:
            await self.known_game(context, "GetBotStats", request.game)
        version = arguments.text("version", request.version, required=False) or None
        try:
            stats = await botstats.bot_stats(self.db, request.bot, problems=limit, version=version)
            if stats is not None and version is not None:
                labels = await botstats.version_labels(self.db, stats.bot_id)
                if version not in labels:
                    await fail(
                        context,
                        "GetBotStats",
                        grpc.StatusCode.NOT_FOUND,
                        f"bot {request.bot!r} has no version {version!r}; it has "
                        f"{', '.join(labels)}",
                    )
        except StorageError as exc:
            await fail(context, "GetBotStats", grpc.StatusCode.UNAVAILABLE, str(exc))
        if stats is None:
            await fail(
                context, "GetBotStats", grpc.StatusCode.NOT_FOUND, f"unknown bot {request.bot!r}"
            )
        out = bot_stats_message(stats, request.game or None)
        out.version = version or ""
        return out

    async def known_game(self, context: Context, method: str, game: str) -> None:
        """End the call with NOT_FOUND, listing the known games, unless `game` is one (a
        registered game or an OpenSpiel game: `engines.get` says which, and what to install)."""
        try:
            engines.get(game)
        except engines.UnknownGame as exc:
            await fail(context, method, grpc.StatusCode.NOT_FOUND, str(exc))
