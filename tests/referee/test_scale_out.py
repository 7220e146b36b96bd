"""Several referee processes, one arena: real processes, real Redis, real Postgres.

Bots connect to different referees; matches mix them and are hosted anywhere; a referee that is
killed, drained or paused loses no decision, duplicates none and strikes nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import engines
from arena.ops.ports import free_port
from arena.sdk import Bot
from arena.storage import Database
from arena.v1 import arena_pb2, bot_pb2, common_pb2
from engines.replay import replayed
from tests.dbfixtures import isolated_redis
from tests.referee.bots import RandomBot
from tests.referee.fleet import Fleet
from tests.referee.harness import ADMIN_METADATA, register, stub

pytestmark = pytest.mark.integration

TAKEOVER_LIMIT = 15.0
"""Seconds within which play must resume after its host is killed (the issue's target)."""


class ThinkingBot(RandomBot):
    """A random bot that thinks a little, so that a match lasts long enough to be interrupted."""

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        await asyncio.sleep(0.02)
        return await super()._answer(request)


@contextlib.asynccontextmanager
async def arena(database_url: str, referees: int = 3) -> AsyncIterator[Fleet]:
    with isolated_redis() as redis_url, tempfile.TemporaryDirectory() as logs:
        fleet = Fleet(database_url, redis_url, referees, Path(logs))
        try:
            await fleet.start_all()
            yield fleet
        except BaseException:
            print(fleet.log_tail())
            raise
        finally:
            fleet.stop_all()


@contextlib.asynccontextmanager
async def bots_spread(
    fleet: Fleet, names: list[str], tokens: list[str], *, failover: bool
) -> AsyncIterator[list[Bot]]:
    """Bot i connects to referee i % N first (with `failover`, the others after it)."""
    bots: list[Bot] = [ThinkingBot(seed=i) for i in range(len(names))]
    count = len(fleet.addresses)
    tasks = []
    for i, (bot, token) in enumerate(zip(bots, tokens, strict=True)):
        first = i % count
        order = fleet.addresses[first:] + fleet.addresses[:first]
        address = ",".join(order) if failover else order[0]
        tasks.append(asyncio.create_task(bot.run_async(address, token)))
    try:
        await asyncio.sleep(1.0)  # every stream open and announced
        yield bots
    finally:
        for bot in bots:
            bot.stop()
        await asyncio.gather(*tasks, return_exceptions=True)


async def create(address: str, game: str, bots: list[str], seed: int) -> int:
    channel, api = stub(address)
    request = arena_pb2.CreateMatchRequest(game=game, bots=bots, seed=seed)
    async with channel:
        match = await api.CreateMatch(request, metadata=ADMIN_METADATA)
    return match.match_id


async def watch(address: str, match_id: int) -> list[arena_pb2.MatchEvent]:
    """Every event WatchMatch streams for the match, through the referee at `address`."""
    channel, api = stub(address)
    async with channel:
        call = api.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match_id))
        return [event async for event in call]


async def get_match(fleet: Fleet, match_id: int) -> arena_pb2.Match:
    """The match as any live referee reports it."""
    for index, address in enumerate(fleet.addresses):
        process = fleet.processes[index]
        if process is None or process.poll() is not None:
            continue
        channel, api = stub(address)
        async with channel:
            with contextlib.suppress(Exception):  # stopped or paused: ask another
                return await api.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id), timeout=2)
    raise AssertionError("no referee answers")


async def until_ended(fleet: Fleet, match_ids: list[int], timeout: float = 120.0) -> None:
    ends = (common_pb2.MATCH_STATUS_FINISHED, common_pb2.MATCH_STATUS_ABORTED)
    until = time.monotonic() + timeout
    for match_id in match_ids:
        while (await get_match(fleet, match_id)).status not in ends:
            assert time.monotonic() < until, f"match {match_id} did not end"
            await asyncio.sleep(0.2)


async def check_played_cleanly(
    fleet: Fleet, match_ids: list[int], *, strikes_allowed: bool = False
) -> None:
    """Every match finished with no strike, its log is contiguous and replays to its outcome."""
    db = await Database.open(fleet.database_url)
    try:
        for match_id in match_ids:
            match = await get_match(fleet, match_id)
            assert match.status == common_pb2.MATCH_STATUS_FINISHED, match
            if not strikes_allowed:
                assert [s.strikes for s in match.seats] == [0] * len(match.seats), match
                assert not any(s.forfeited for s in match.seats), match
            numbers = [n for n, _ in fleet.decisions(match_id)]
            assert numbers == list(range(len(numbers))), "decision numbers stay contiguous"
            record = await db.record(match_id)
            outcome = replayed(engines.get(match.game), record).outcome()
            assert outcome is not None, "the log replays to the end of the match"
            if not any(s.forfeited for s in match.seats):
                assert list(outcome.ranks) == [s.rank for s in match.seats]
    finally:
        await db.close()


async def until_decisions(fleet: Fleet, match_id: int, count: int) -> None:
    until = time.monotonic() + 60
    while len(fleet.decisions(match_id)) < count:
        assert time.monotonic() < until, f"match {match_id} is not being played"
        await asyncio.sleep(0.05)


async def registered(fleet: Fleet, count: int) -> tuple[list[str], list[str]]:
    names = [f"b{i}" for i in range(count)]
    tokens = [
        await register(fleet.addresses[i % len(fleet.addresses)], n) for i, n in enumerate(names)
    ]
    return names, tokens


def test_bots_on_three_referees_play_matches_hosted_anywhere(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with arena(fresh_database_url) as fleet:
            listed = await fleet.until_live(3)
            assert sorted(r.name for r in listed) == ["ref-0", "ref-1", "ref-2"]
            assert {r.address for r in listed} == set(fleet.addresses)
            names, tokens = await registered(fleet, 8)
            async with bots_spread(fleet, names, tokens, failover=False):
                # Each table mixes bots of different referees; all are created through ref-0.
                tables = [names[0:4], names[4:8], [names[1], names[3], names[5], names[7]]]
                ids = [
                    await create(fleet.addresses[0], "hart", t, seed=s)
                    for s, t in enumerate(tables, 1)
                ]
                ids.append(await create(fleet.addresses[2], "loyang", [names[2], names[6]], seed=9))
                hosts = {(await get_match(fleet, i)).host for i in ids}
                # A spectator on a referee that does not host the match follows it live.
                host = (await get_match(fleet, ids[0])).host
                elsewhere = next(a for i, a in enumerate(fleet.addresses) if f"ref-{i}" != host)
                watching = asyncio.create_task(watch(elsewhere, ids[0]))
                await until_ended(fleet, ids)
                events = await asyncio.wait_for(watching, 30)
            await check_played_cleanly(fleet, ids)
            assert hosts <= {"ref-0", "ref-1", "ref-2"} and len(hosts) >= 2, hosts
            numbers = [e.decision for e in events[:-1]]
            assert numbers == list(range(len(fleet.decisions(ids[0])))), "every step once"
            assert events[-1].label == "end"
            assert events[-1].final.status == common_pb2.MATCH_STATUS_FINISHED

    asyncio.run(scenario())


def _takeover_scenario(database_url: str, how: signal.Signals) -> None:
    async def scenario() -> None:
        async with arena(database_url) as fleet:
            names, tokens = await registered(fleet, 8)
            async with bots_spread(fleet, names, tokens, failover=True):
                tables = [names[0:4], names[4:8]]
                ids = [
                    await create(fleet.addresses[0], "hart", t, seed=s)
                    for s, t in enumerate(tables, 1)
                ]
                await until_decisions(fleet, ids[0], 10)
                before = await get_match(fleet, ids[0])
                victim = fleet.index_of(before.host)
                logged = len(fleet.decisions(ids[0]))
                fleet.signal(victim, how)
                killed_at = time.monotonic()
                if how is signal.SIGTERM:
                    assert fleet.processes[victim] is not None
                    assert fleet.processes[victim].wait(20) == 0, "a drained referee exits cleanly"
                # Play resumes elsewhere: new decisions are logged by another host.
                while len(fleet.decisions(ids[0])) <= logged + 1:
                    assert time.monotonic() - killed_at < TAKEOVER_LIMIT, fleet.log_tail()
                    await asyncio.sleep(0.05)
                after = await get_match(fleet, ids[0])
                assert after.host != before.host
                await until_ended(fleet, ids)
            await check_played_cleanly(fleet, ids)

    asyncio.run(scenario())


def test_a_killed_referees_matches_resume_elsewhere_within_15_seconds(
    fresh_database_url: str,
) -> None:
    _takeover_scenario(fresh_database_url, signal.SIGKILL)


def test_a_draining_referee_hands_its_matches_over_without_strikes(
    fresh_database_url: str,
) -> None:
    _takeover_scenario(fresh_database_url, signal.SIGTERM)


@pytest.mark.parametrize("frozen_for", [0.0, 10.0], ids=["woken-at-takeover", "frozen-10s"])
def test_a_paused_host_cannot_apply_a_decision_after_a_takeover(
    fresh_database_url: str, frozen_for: float
) -> None:
    async def scenario() -> None:
        async with arena(fresh_database_url) as fleet:
            names, tokens = await registered(fleet, 4)
            # Its host is paused past its lease: the others take the match over. Bots connected
            # to the paused referee notice it froze by their keepalive pings and move on.
            async with bots_spread(fleet, names, tokens, failover=True):
                match_id = await create(fleet.addresses[0], "hart", names, seed=4)
                await until_decisions(fleet, match_id, 5)
                host, first_epoch = fleet.lease_of(match_id)
                fleet.signal(fleet.index_of(host), signal.SIGSTOP)
                paused_at = time.monotonic()
                while fleet.lease_of(match_id)[1] == first_epoch:
                    assert time.monotonic() - paused_at < TAKEOVER_LIMIT, fleet.log_tail()
                    await asyncio.sleep(0.05)
                taken_at = len(fleet.decisions(match_id))
                # Frozen for long, its registry entry expires and its bots' keepalive pings go
                # unanswered: they reconnect to the others, which play on meanwhile.
                await asyncio.sleep(frozen_for)
                if frozen_for:
                    assert len(fleet.decisions(match_id)) > taken_at + 1, "play went on"
                # The stale host wakes up mid-match, with answers waiting in its sockets.
                fleet.signal(fleet.index_of(host), signal.SIGCONT)
                await until_ended(fleet, [match_id])
            log = fleet.decisions(match_id)
            assert [n for n, _ in log] == list(range(len(log)))
            stale = [n for n, epoch in log if epoch == first_epoch and n >= taken_at]
            assert stale == [], "the paused host applied nothing after the takeover"
            assert len({epoch for _, epoch in log}) >= 2
            await check_played_cleanly(fleet, [match_id])

    asyncio.run(scenario())


def test_a_referee_name_in_use_is_refused(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with arena(fresh_database_url, referees=1) as fleet:
            fleet.ports.append(free_port())
            fleet.addresses.append(f"127.0.0.1:{fleet.ports[1]}")
            fleet.processes.append(None)
            fleet.wrap.append([])
            fleet.name = lambda index: "ref-0"  # type: ignore[method-assign]
            fleet.start(1)
            process = fleet.processes[1]
            assert process is not None
            assert process.wait(30) != 0
            assert "already named 'ref-0'" in (fleet.logs / "ref-0.log").read_text()

    asyncio.run(scenario())
