"""Bot statistics: the storage query on seeded matches, and the RPC and CLI on a real referee."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import timedelta

import grpc
import pytest

from arena.storage import Database, botstats
from arena.v1 import arena_pb2, bot_pb2
from tests.referee.bots import RandomBot, ScriptedAnswerBot, json_action
from tests.referee.harness import (
    create_match,
    playing,
    register,
    running_referee,
    stub,
    wait_finished,
)
from tests.web.seed import register as register_rows
from tests.web.seed import store_match

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


async def ended(bot: RandomBot, timeout: float = 30.0) -> None:
    """Wait for the bot's MatchEnd, which the referee sends once the match is rated."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not bot.finished:
        assert asyncio.get_running_loop().time() < deadline, "no MatchEnd arrived"
        await asyncio.sleep(0.02)


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (Postgres `percentile_cont`)."""
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def test_stats_count_results_strikes_and_think_times(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with await Database.open(fresh_database_url) as db:
            await db.migrate()
            ids = await register_rows(db, ["a", "b", "c"])
            bots = list(ids.items())
            strikes = {
                (2, 1): ("timeout", "no answer to decision 2 within 1.000s"),
                (5, 1): ("illegal_action", "pack: 9 cards is more than the hand holds"),
                (7, 1): ("timeout", "no answer to decision 7 within 1.000s"),
            }
            first = await store_match(db, "hart", bots, 21, strikes=strikes)
            second = await store_match(db, "hart", bots, 22)
            # A running match: its strike and timing stay out until it ends.
            late = ("timeout", "no answer to decision 1 within 1.000s")
            await store_match(db, "hart", bots, 23, keep=4, strikes={(1, 1): late})
            stats = await botstats.bot_stats(db, "b", problems=2)
            assert await botstats.bot_stats(db, "nobody") is None
        assert stats is not None
        hart = stats.game("hart")
        assert hart is not None and stats.game("loyang") is None
        assert hart.matches == 2
        assert hart.wins == sum(m.ranks[1] == 1 for m in (first, second))
        assert sum(hart.ranks.values()) == 2
        assert hart.strikes == 3 and hart.timeouts == 2
        assert hart.strikes_by_kind == {"timeout": 2, "illegal_action": 1}
        assert [(p.match_id, p.decision, p.kind) for p in hart.problems] == [
            (first.match_id, 7, "timeout"),
            (first.match_id, 5, "illegal_action"),
        ], "the latest Problems first, as many as asked"
        assert hart.problems[1].message == "pack: 9 cards is more than the hand holds"
        assert hart.rating is not None and len(hart.history) == 2 == hart.rated_games
        assert hart.history[-1].after == pytest.approx(hart.rating)
        assert hart.history[0].match_id == first.match_id
        times = first.think[1] + second.think[1]
        assert hart.think is not None and hart.think.decisions == len(times)
        for got, q in ((hart.think.p50, 0.5), (hart.think.p90, 0.9), (hart.think.p99, 0.99)):
            assert got.total_seconds() == pytest.approx(percentile(times, q))
        assert hart.think.max == timedelta(seconds=max(times))
        assert [r.match_id for r in stats.recent][1:] == [second.match_id, first.match_id]
        assert stats.recent[0].status == "running" and stats.recent[0].rank is None

    asyncio.run(scenario())


def test_rpc_and_cli_report_the_strikes_the_referee_gave(fresh_database_url: str) -> None:
    bad = [
        bot_pb2.Action(index=999),
        json_action("{not json"),
        json_action({"type": "pack", "goods": ["statue"] * 5}),
    ]

    async def scenario() -> str:
        async with running_referee(fresh_database_url) as server:
            names = ["bad", "b1", "b2", "b3"]
            tokens = [await register(server.address, n) for n in names]
            liar = ScriptedAnswerBot(bad)
            bots = [liar, RandomBot(1), RandomBot(2), RandomBot(3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=2)
                await wait_finished(server.address, match_id)
                await ended(liar)
            channel, api = stub(server.address)
            async with channel:
                stats = await api.GetBotStats(arena_pb2.GetBotStatsRequest(bot="bad"))
                with pytest.raises(grpc.aio.AioRpcError) as missing:
                    await api.GetBotStats(arena_pb2.GetBotStatsRequest(bot="nobody"))
                assert missing.value.code() == grpc.StatusCode.NOT_FOUND
                assert "unknown bot 'nobody'" in (missing.value.details() or "")
            (hart,) = stats.games
            assert hart.game == "hart" and hart.matches == 1 and hart.forfeits == 1
            assert dict(hart.strikes_by_kind) == {"invalid_action": 2, "illegal_action": 1}
            assert hart.strikes == 3 and hart.timeouts == 0
            assert [p.kind for p in hart.problems] == [
                "illegal_action",
                "invalid_action",
                "invalid_action",
            ]
            assert all(p.match_id == match_id for p in hart.problems)
            assert "index 999 is out of range" in hart.problems[-1].message
            assert hart.HasField("think") and hart.think.decisions > 0
            assert hart.HasField("rating") and len(hart.history) == 1
            return server.address

    address = asyncio.run(scenario())
    assert address  # the referee is gone now: the CLI must say so in one line
    env = {**os.environ, "PYTHONPATH": REPO}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "bot", "stats", "bad", "--address", address],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 5, done.stderr  # ExitCode.UNAVAILABLE
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.startswith("arena: ")


def test_cli_prints_the_report(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["solo", "r1", "r2"]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(0), RandomBot(1), RandomBot(2)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=3)
                await wait_finished(server.address, match_id)
                await ended(bots[0])
            run = [sys.executable, "-m", "arena.cli.main", "bot", "stats"]
            env = {**os.environ, "PYTHONPATH": REPO}
            shown = await asyncio.to_thread(
                subprocess.run,
                [*run, "solo", "--address", server.address],
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
            )
            assert shown.returncode == 0, shown.stderr
            lines = shown.stdout.splitlines()
            assert lines[0].startswith("solo (registered ")
            assert lines[1].startswith("hart: rating ")
            assert "matches 1," in shown.stdout and "timeouts 0, strikes 0 (none)" in shown.stdout
            assert "think time over " in shown.stdout
            missing = await asyncio.to_thread(
                subprocess.run,
                [*run, "ghost", "--address", server.address],
                capture_output=True,
                text=True,
                env=env,
                timeout=60,
            )
            assert missing.returncode == 3  # ExitCode.NOT_FOUND
            assert len(missing.stderr.splitlines()) == 1, missing.stderr
            assert missing.stderr.startswith("arena: unknown bot 'ghost'")

    asyncio.run(scenario())
