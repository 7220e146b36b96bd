"""The public API: every RPC answers INVALID_ARGUMENT naming the field for a bad value, and a
running match reveals nothing a spectator may not see through any RPC."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import grpc
import pytest
from google.protobuf import text_format
from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message

import engines
from arena.referee.app import Referee, RefereeConfig
from arena.referee.arguments import InvalidArgument
from arena.referee.clock import Clock
from arena.storage.rows import DecisionRow, SeatResult, TableKey
from arena.tournament import rounds as tournaments
from arena.v1 import arena_pb2, bot_pb2, common_pb2
from engines import HashRng
from engines.driver import MatchDriver
from tests.referee.bots import RandomBot
from tests.referee.harness import (
    ADMIN_METADATA,
    create_match,
    playing,
    register,
    running_referee,
    stub,
    until,
)

pytestmark = pytest.mark.integration

TEN_THOUSAND_YEARS = Duration(seconds=10_000 * 365 * 86400)
NO_ARGUMENTS = {"ListGames", "ListBots", "ListSchedules", "ListReferees"}
"""RPCs whose request has no field a client could get wrong."""
ADMIN_RPCS = {
    "CreateMatch",
    "CreateTournament",
    "WithdrawEntrant",
    "EnterEntrant",
    "CreateSchedule",
    "PauseSchedule",
    "DeleteSchedule",
    "StartLadder",
    "StopLadder",
    "StartVersionTest",
    "StopVersionTest",
}
"""RPCs that need the admin token: the cases send it, so the arguments are what is refused."""


def _clock(**fields: Any) -> common_pb2.Clock:
    out = common_pb2.Clock()
    for name, value in fields.items():
        if isinstance(value, Duration):
            getattr(out, name).CopyFrom(value)
        else:
            setattr(out, name, value)
    return out


def _invalid_cases() -> dict[str, list[tuple[Message, str]]]:
    """Per RPC: (request, the field its error must name)."""
    match = dict(game="hart", bots=["v0", "v1", "v2"])
    tournament = dict(game="hart", bots=["v0", "v1", "v2"], table_size=3, rounds=1)
    far = arena_pb2.CreateTournamentRequest(**tournament)  # type: ignore[arg-type]
    far.starts_at.seconds = 400_000_000_000
    schedule = dict(game="hart", bots=["v0", "v1", "v2"], table_size=3, name="nightly")
    every = dict(every=Duration(seconds=3600))
    far_schedule = arena_pb2.CreateScheduleRequest(**schedule, **every)  # type: ignore[arg-type]
    far_schedule.first_run.seconds = 400_000_000_000
    versions: dict[str, Any] = dict(
        game="hart", candidate="v0", baseline="v1", elo0=0.0, elo1=5.0, seats=3, fillers=["v2"]
    )
    return {
        "RegisterBot": [
            (arena_pb2.RegisterBotRequest(name="x\n"), "name"),
            (arena_pb2.RegisterBotRequest(name=""), "name"),
            (arena_pb2.RegisterBotRequest(name="a" * 65), "name"),
        ],
        "CreateMatch": [
            (
                arena_pb2.CreateMatchRequest(
                    **match,  # type: ignore[arg-type]
                    clock=_clock(per_decision=TEN_THOUSAND_YEARS),
                ),
                "clock.per_decision",
            ),
            (
                arena_pb2.CreateMatchRequest(
                    **match,  # type: ignore[arg-type]
                    clock=_clock(bank=TEN_THOUSAND_YEARS),
                ),
                "clock.bank",
            ),
            (
                arena_pb2.CreateMatchRequest(
                    **match,  # type: ignore[arg-type]
                    clock=_clock(per_decision=Duration(seconds=2**62)),
                ),
                "clock.per_decision",
            ),
            (
                arena_pb2.CreateMatchRequest(
                    **match,  # type: ignore[arg-type]
                    clock=_clock(grace=Duration(seconds=-1)),
                ),
                "clock.grace",
            ),
            (
                arena_pb2.CreateMatchRequest(
                    **match,  # type: ignore[arg-type]
                    clock=_clock(max_strikes=-1),
                ),
                "clock.max_strikes",
            ),
            (
                arena_pb2.CreateMatchRequest(
                    **match,  # type: ignore[arg-type]
                    connect_timeout=TEN_THOUSAND_YEARS,
                ),
                "connect_timeout",
            ),
            (arena_pb2.CreateMatchRequest(game="hart", bots=["v0", "v1\n", "v2"]), "bots[1]"),
            (arena_pb2.CreateMatchRequest(**match, round_no=2), "round_no"),  # type: ignore[arg-type]
            (
                arena_pb2.CreateMatchRequest(**match, tournament_id=-4, round_no=1, table_no=1),  # type: ignore[arg-type]
                "tournament_id",
            ),
        ],
        "GetMatch": [
            (arena_pb2.GetMatchRequest(match_id=0), "match_id"),
            (arena_pb2.GetMatchRequest(match_id=-1), "match_id"),
        ],
        "ListMatches": [
            (arena_pb2.ListMatchesRequest(status=99), "status"),  # type: ignore[arg-type]
            (arena_pb2.ListMatchesRequest(limit=-1), "limit"),
            (arena_pb2.ListMatchesRequest(limit=501), "limit"),
            (arena_pb2.ListMatchesRequest(bot="x\n"), "bot"),
        ],
        "WatchMatch": [
            (arena_pb2.WatchMatchRequest(match_id=-1), "match_id"),
            (arena_pb2.WatchMatchRequest(match_id=1, delay=Duration(seconds=-1)), "delay"),
            (arena_pb2.WatchMatchRequest(match_id=1, delay=TEN_THOUSAND_YEARS), "delay"),
        ],
        "GetReplay": [(arena_pb2.GetReplayRequest(match_id=0), "match_id")],
        "CreateTournament": [
            (arena_pb2.CreateTournamentRequest(**{**tournament, "rounds": -1}), "rounds"),  # type: ignore[arg-type]
            (
                arena_pb2.CreateTournamentRequest(
                    **tournament,  # type: ignore[arg-type]
                    clock=_clock(per_decision=TEN_THOUSAND_YEARS),
                ),
                "clock.per_decision",
            ),
            (far, "starts_at"),
            (arena_pb2.CreateTournamentRequest(**tournament, name="a\nb"), "name"),  # type: ignore[arg-type]
            (arena_pb2.CreateTournamentRequest(**tournament, format=99), "format"),  # type: ignore[arg-type]
            (
                arena_pb2.CreateTournamentRequest(**tournament, rating_system=99),  # type: ignore[arg-type]
                "rating_system",
            ),
            (
                arena_pb2.CreateTournamentRequest(**tournament, forfeit_limit=-1),  # type: ignore[arg-type]
                "forfeit_limit",
            ),
        ],
        "ListTournaments": [
            (arena_pb2.ListTournamentsRequest(status=99), "status"),  # type: ignore[arg-type]
            (arena_pb2.ListTournamentsRequest(limit=-1), "limit"),
        ],
        "GetTournament": [(arena_pb2.GetTournamentRequest(tournament_id=-3), "tournament_id")],
        "GetLeaderboard": [
            (arena_pb2.GetLeaderboardRequest(game="hart", limit=-1), "limit"),
            (arena_pb2.GetLeaderboardRequest(game="hart", rating_system=99), "rating_system"),  # type: ignore[arg-type]
        ],
        "GetBotStats": [
            (arena_pb2.GetBotStatsRequest(bot="v0\n"), "bot"),
            (arena_pb2.GetBotStatsRequest(bot="v0", problems=-1), "problems"),
            (arena_pb2.GetBotStatsRequest(bot="v0", problems=101), "problems"),
        ],
        "WithdrawEntrant": [
            (arena_pb2.ChangeEntrantRequest(tournament_id=0, bot="v0"), "tournament_id"),
            (arena_pb2.ChangeEntrantRequest(tournament_id=1, bot="v0\n"), "bot"),
        ],
        "EnterEntrant": [
            (arena_pb2.ChangeEntrantRequest(tournament_id=-1, bot="v0"), "tournament_id"),
            (arena_pb2.ChangeEntrantRequest(tournament_id=1, bot=""), "bot"),
        ],
        "CreateSchedule": [
            (arena_pb2.CreateScheduleRequest(**schedule), "every"),  # type: ignore[arg-type]
            (
                arena_pb2.CreateScheduleRequest(**schedule, every=TEN_THOUSAND_YEARS),  # type: ignore[arg-type]
                "every",
            ),
            (
                arena_pb2.CreateScheduleRequest(
                    **schedule,  # type: ignore[arg-type]
                    **every,
                    clock=_clock(per_decision=TEN_THOUSAND_YEARS),
                ),
                "clock.per_decision",
            ),
            (far_schedule, "first_run"),
            (arena_pb2.CreateScheduleRequest(**{**schedule, "name": ""}, **every), "name"),  # type: ignore[arg-type]
            (arena_pb2.CreateScheduleRequest(**schedule, **every, rounds=-1), "rounds"),  # type: ignore[arg-type]
            (arena_pb2.CreateScheduleRequest(**schedule, **every, format=99), "format"),  # type: ignore[arg-type]
            (
                arena_pb2.CreateScheduleRequest(**schedule, **every, rating_system=99),  # type: ignore[arg-type]
                "rating_system",
            ),
        ],
        "PauseSchedule": [(arena_pb2.PauseScheduleRequest(schedule_id=0), "schedule_id")],
        "DeleteSchedule": [(arena_pb2.DeleteScheduleRequest(schedule_id=-2), "schedule_id")],
        "StartLadder": [
            (
                arena_pb2.StartLadderRequest(game="hart", table_size=3, concurrency=-1),
                "concurrency",
            ),
            (
                arena_pb2.StartLadderRequest(
                    game="hart", table_size=3, clock=_clock(bank=TEN_THOUSAND_YEARS)
                ),
                "clock.bank",
            ),
            (arena_pb2.StartLadderRequest(game="", table_size=3), "game"),
        ],
        "StopLadder": [(arena_pb2.StopLadderRequest(game="x\ny"), "game")],
        "StartVersionTest": [
            (arena_pb2.StartVersionTestRequest(**{**versions, "candidate": "v0@"}), "candidate"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "baseline": "b@v1@v2"}), "baseline"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "candidate": "x y"}), "candidate"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "baseline": ""}), "baseline"),
            (
                arena_pb2.StartVersionTestRequest(**{**versions, "fillers": ["ok", "b\n"]}),
                "fillers[1]",
            ),
            (arena_pb2.StartVersionTestRequest(**{**versions, "fillers": ["f"] * 9}), "fillers"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "elo0": 5000.0}), "elo0"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "elo1": float("nan")}), "elo1"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "elo1": -5.0}), "elo1"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "alpha": 0.7}), "alpha"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "beta": -0.1}), "beta"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "seats": 99}), "seats"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "max_matches": -1}), "max_matches"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "in_flight": 1000}), "in_flight"),
            (arena_pb2.StartVersionTestRequest(**{**versions, "game": ""}), "game"),
        ],
        "GetVersionTest": [(arena_pb2.GetVersionTestRequest(test_id=0), "test_id")],
        "StopVersionTest": [(arena_pb2.StopVersionTestRequest(test_id=-3), "test_id")],
        "ListVersionTests": [
            (arena_pb2.ListVersionTestsRequest(status=99), "status"),  # type: ignore[arg-type]
            (arena_pb2.ListVersionTestsRequest(limit=-1), "limit"),
            (arena_pb2.ListVersionTestsRequest(limit=501), "limit"),
        ],
    }


async def _call(api: Any, method: str, request: Message) -> None:
    metadata = ADMIN_METADATA if method in ADMIN_RPCS else None
    if method == "WatchMatch":
        async for _ in api.WatchMatch(request, metadata=metadata):
            pass
        return
    await getattr(api, method)(request, metadata=metadata)


def test_every_rpc_answers_invalid_argument_naming_the_field(fresh_database_url: str) -> None:
    cases = _invalid_cases()
    service = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"]
    assert set(cases) | NO_ARGUMENTS == {m.name for m in service.methods}, "an RPC lacks cases"

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            for name in ("v0", "v1", "v2"):
                await register(server.address, name)
            channel, api = stub(server.address)
            async with channel:
                for method, requests in cases.items():
                    for request, field in requests:
                        with pytest.raises(grpc.aio.AioRpcError) as info:
                            await _call(api, method, request)
                        got = (info.value.code(), info.value.details())
                        assert got[0] == grpc.StatusCode.INVALID_ARGUMENT, (method, field, got)
                        assert (got[1] or "").startswith(f"{field}:"), (method, field, got)
                # Nothing above was stored: the bad values were stopped at the door.
                listed = await api.ListMatches(arena_pb2.ListMatchesRequest())
                assert not listed.matches
                tournaments = await api.ListTournaments(arena_pb2.ListTournamentsRequest())
                assert not tournaments.tournaments

    asyncio.run(scenario())


# -- nothing private while a match runs ------------------------------------------------------------
SEED = 918_273_645_546_372_819
HOLD_CLOCK = Clock(
    per_decision=timedelta(seconds=30),
    bank=timedelta(0),
    grace=timedelta(milliseconds=50),
    max_strikes=3,
)
"""Long enough that the match sits at its first decision while the test looks at it."""


class MuteBot(RandomBot):
    """Takes its requests and never answers, so the match waits at its decision."""

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        self.requests.append(request)
        return None


def _field_names(message: Message) -> set[str]:
    names = set()
    for field, value in message.ListFields():
        names.add(field.name)
        if field.type == field.TYPE_MESSAGE:
            values = value if field.is_repeated else [value]
            for item in values:
                if isinstance(item, Message):
                    names |= _field_names(item)
    return names


def _reveals_nothing(message: Message) -> None:
    """No seed, record, private view or action in a public answer about a running match."""
    assert str(SEED) not in text_format.MessageToString(message)
    assert not _field_names(message) & {"seed", "record_json", "me", "legal", "token"}


async def _first(events: AsyncIterator[arena_pb2.MatchEvent]) -> arena_pb2.MatchEvent:
    async for event in events:
        return event
    raise AssertionError("no event")


def test_a_running_match_reveals_nothing_private(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(
            fresh_database_url, clock=HOLD_CLOCK, spectator_delay=timedelta(seconds=20)
        ) as server:
            names = ["p0", "p1", "p2"]
            tokens = [await register(server.address, n) for n in names]
            bots = [MuteBot(), RandomBot(1), RandomBot(2)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=SEED)
                await until(lambda: bool(bots[0].requests))  # the match now waits for it
                assert json.loads(bots[0].requests[0].view_json)["me"]["hand"]
                channel, api = stub(server.address)
                async with channel:
                    await _check_every_rpc(api, match_id)

    asyncio.run(scenario())


async def _check_every_rpc(api: Any, match_id: int) -> None:
    match = await api.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
    assert match.status == common_pb2.MATCH_STATUS_RUNNING
    _reveals_nothing(match)
    listed = await api.ListMatches(arena_pb2.ListMatchesRequest())
    _reveals_nothing(listed)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await api.GetReplay(arena_pb2.GetReplayRequest(match_id=match_id))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "published when it ends" in (info.value.details() or "")
    # The referee's spectator delay (20 s) holds even for a client that asks for none...
    watch = api.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match_id))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(_first(watch), 1.0)
    watch.cancel()
    tournament = await api.CreateTournament(
        arena_pb2.CreateTournamentRequest(
            game="hart", bots=["p0", "p1", "p2"], table_size=3, rounds=1, seed=SEED
        ),
        metadata=ADMIN_METADATA,
    )
    _reveals_nothing(tournament)
    _reveals_nothing(
        await api.GetTournament(
            arena_pb2.GetTournamentRequest(tournament_id=tournament.tournament_id)
        )
    )
    _reveals_nothing(await api.ListTournaments(arena_pb2.ListTournamentsRequest()))
    _reveals_nothing(await api.ListBots(arena_pb2.ListBotsRequest()))
    _reveals_nothing(await api.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="hart")))


def test_watching_with_no_spectator_delay_shows_only_public_views(fresh_database_url: str) -> None:
    rules = engines.get("hart")
    public_setup = MatchDriver(rules, 3, {}, SEED).view(None)

    async def scenario() -> None:
        async with running_referee(fresh_database_url, clock=HOLD_CLOCK) as server:
            names = ["w0", "w1", "w2"]
            tokens = [await register(server.address, n) for n in names]
            bots = [MuteBot(), RandomBot(1), RandomBot(2)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=SEED)
                channel, api = stub(server.address)
                async with channel:
                    watch = api.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match_id))
                    event = await asyncio.wait_for(_first(watch), 10.0)
                    watch.cancel()
            assert event.label == "setup"
            _reveals_nothing(event)
            assert json.loads(event.view_json) == public_setup

    asyncio.run(scenario())


def test_a_referee_refuses_a_default_clock_out_of_range() -> None:
    absurd = Clock(per_decision=timedelta(days=3_650_000))
    with pytest.raises(InvalidArgument, match=r"default clock\.per_decision"):
        Referee(None, RefereeConfig(default_clock=absurd))  # type: ignore[arg-type]


def test_watching_a_match_of_older_rules_fails_with_a_clear_status(fresh_database_url: str) -> None:
    rules = engines.get("loyang")

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            await register(server.address, "old")
            db = server.referee.db
            bot = await db.bot_by_name("old")
            assert bot is not None
            match_id = await db.create_match(
                game="loyang",
                rules_version=rules.version + 1,
                options=rules.resolve_options({}),
                seats=1,
                seed=5,
                clock=Clock().to_json(),
                bot_ids=[bot.id],
            )
            await db.start_match(match_id, "elsewhere")
            await db.finish_match(match_id, engines.Termination.COMPLETED, [SeatResult(1, 3.0)])
            channel, api = stub(server.address)
            async with channel:
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    async for _ in api.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match_id)):
                        pass
            assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert f"rules v{rules.version + 1}" in (info.value.details() or "")

    asyncio.run(scenario())


def test_a_stored_match_that_cannot_resume_is_aborted_not_stranded(fresh_database_url: str) -> None:
    rules = engines.get("hart")
    names = ["s0", "s1", "s2"]

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            for name in names:
                await register(server.address, name)
            db = server.referee.db
            ids = [bot.id for bot in [await db.bot_by_name(n) for n in names] if bot]
            tid = await tournaments.create_tournament(
                db, name="t", game="hart", bot_names=names, table_size=3, rounds=1, clock=Clock()
            )
            match_id = await db.create_match(
                game="hart",
                rules_version=rules.version + 1,
                options=rules.resolve_options({}),
                seats=3,
                seed=5,
                clock=Clock().to_json(),
                bot_ids=ids,
                tournament=TableKey(tid, 1, 1),
            )
            await db.start_match(match_id, "a-referee-that-died")
            request = arena_pb2.CreateMatchRequest(
                game="hart", bots=names, tournament_id=tid, round_no=1, table_no=1
            )
            channel, api = stub(server.address)
            async with channel:
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await api.CreateMatch(request, metadata=ADMIN_METADATA)
                match = await api.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
            assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert match.status == common_pb2.MATCH_STATUS_ABORTED
            assert f"rules v{rules.version + 1}" in match.abort_reason

    asyncio.run(scenario())


def test_a_match_running_elsewhere_is_followed_behind_the_spectator_delay(
    fresh_database_url: str,
) -> None:
    rules = engines.get("loyang")

    async def scenario() -> tuple[list[arena_pb2.MatchEvent], list[arena_pb2.MatchEvent]]:
        async with running_referee(
            fresh_database_url, spectator_delay=timedelta(seconds=30)
        ) as server:
            await register(server.address, "far")
            db = server.referee.db
            bot = await db.bot_by_name("far")
            assert bot is not None
            match_id = await db.create_match(
                game="loyang",
                rules_version=rules.version,
                options=rules.resolve_options({}),
                seats=1,
                seed=SEED,
                clock=Clock().to_json(),
                bot_ids=[bot.id],
            )
            await db.start_match(match_id, "another-referee")
            state = MatchDriver(rules, 1, {}, SEED).state
            for _ in range(5):  # five decisions just logged by the other referee
                decision = rules.decision(state)
                assert decision is not None
                joint = {0: rules.legal_actions(state, 0).default()}
                await db.record_decision(
                    DecisionRow(
                        match_id,
                        decision.number,
                        decision.label,
                        {0: rules.dump_action(joint[0])},
                    )
                )
                state = rules.apply(state, joint, HashRng.for_decision(SEED, decision.number))
            channel, api = stub(server.address)
            async with channel:
                request = arena_pb2.WatchMatchRequest(match_id=match_id)
                events: list[arena_pb2.MatchEvent] = []

                async def follow() -> None:
                    async for event in api.WatchMatch(request):
                        events.append(event)

                following = asyncio.create_task(follow())
                await asyncio.sleep(1.0)  # four polls of the log
                while_running = list(events)
                await db.abort_match(match_id, "ended by the other referee")
                await asyncio.wait_for(following, 10)
                return while_running, events

    while_running, events = asyncio.run(scenario())
    assert while_running == [], "nothing logged less than 30 s ago is shown"
    assert [e.decision for e in events] == [0, 1, 2, 3, 4, 4], "once ended, every step, then end"
    assert events[-1].label == "end"
    assert events[-1].final.status == common_pb2.MATCH_STATUS_ABORTED
