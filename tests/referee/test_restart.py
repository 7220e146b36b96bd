"""A referee that stops (gracefully or by kill -9) loses nothing: its matches resume on start."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from arena.ops.ports import free_port
from arena.referee.clock import Clock
from arena.sdk import Bot
from arena.storage import Database
from arena.v1 import bot_pb2, common_pb2
from tests.referee.bots import RandomBot, ScriptedAnswerBot, SlowBot, json_action
from tests.referee.fleet import until_serving
from tests.referee.harness import (
    ADMIN,
    create_match,
    playing,
    register,
    running_referee,
    wait_finished,
)

pytestmark = pytest.mark.integration

BANKED = Clock(
    per_decision=timedelta(seconds=0.3),
    bank=timedelta(seconds=3),
    grace=timedelta(milliseconds=50),
    max_strikes=5,
)


async def _stored(url: str, match_id: int) -> tuple[str, list[int], list[timedelta]]:
    """The match's status and, from its log, each seat's strikes and time used."""
    db = await Database.open(url)
    try:
        row = await db.match(match_id)
        assert row is not None
        strikes = [0] * row.seats
        used = [timedelta(0)] * row.seats
        for decision in await db.decisions(match_id):
            for seat in decision.strikes:
                strikes[seat] += 1
            for seat, taken in decision.elapsed.items():
                used[seat] += taken
        return row.status.value, strikes, used
    finally:
        await db.close()


def test_a_stopped_match_resumes_on_start_with_its_strikes_and_clocks(
    fresh_database_url: str,
) -> None:
    names = ["liar", "slow", "calm"]

    async def scenario() -> None:
        async with running_referee(fresh_database_url, clock=BANKED) as first:
            tokens = [await register(first.address, n) for n in names]
            liar = ScriptedAnswerBot([bot_pb2.Action(index=999), json_action("{nope")])
            slow = SlowBot(slow_on={1, 2}, sleep=0.6)
            bots: list[Bot] = [liar, slow, RandomBot(3)]
            async with playing(list(zip(bots, tokens, strict=True)), first.address):
                match_id = await create_match(first.address, "hart", names, seed=8)
                while sum(p.strike for p in liar.problems) < 2 or slow.answered < 3:
                    await asyncio.sleep(0.02)
            # Leaving the blocks stops the bots, then the referee (gracefully).
        status, strikes, used = await _stored(fresh_database_url, match_id)
        assert status == "running"
        assert strikes[0] >= 2 and used[1] > BANKED.per_decision, (strikes, used)

        async with running_referee(fresh_database_url, clock=BANKED) as second:
            # Nobody asks for the match again: the referee resumed it as it started.
            runner = second.referee.runners[match_id]
            assert [s.strikes for s in runner.seats] == strikes
            assert [s.clock.used for s in runner.seats] == used
            for seat in runner.seats:
                overtime = max(timedelta(0), seat.clock.used - BANKED.per_decision)
                assert seat.clock.bank_left <= BANKED.bank
                assert seat.clock.bank_left >= BANKED.bank - overtime
            assert runner.seats[1].clock.bank_left < BANKED.bank, "the slow seat spent bank"
            # Asking for the same match again gives the same match, not a second one.
            again = await create_match(second.address, "hart", names, seed=8)
            assert again == match_id
            bots = [RandomBot(seed=10 + i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), second.address):
                match = await wait_finished(second.address, match_id)
        assert match.status == common_pb2.MATCH_STATUS_FINISHED
        assert match.seats[0].strikes >= strikes[0]
        db = await Database.open(fresh_database_url)
        try:
            assert len(await db.list_matches()) == 1
        finally:
            await db.close()

    asyncio.run(scenario())


def _serve(url: str, port: int, home: Path, redis_url: str) -> subprocess.Popen[bytes]:
    # The session's Redis, named: a referee with no ARENA_REDIS_URL starts an embedded Redis of
    # its own, which outlives it when the test SIGKILLs it. ARENA_HOME of the test's own, so
    # that nothing lands in the user's data directory.
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": url,
        "ARENA_REDIS_URL": redis_url,
        "ARENA_HOME": str(home),
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.cli.main",
            "serve",
            "--port",
            str(port),
            "--metrics-port",
            "-1",
            "--name",
            "killed",
            "--admin-token",
            ADMIN,
            "--per-decision",
            "2",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_an_adhoc_match_survives_kill_9_of_its_referee(
    fresh_database_url: str, redis_server_url: str, tmp_path: Path
) -> None:
    names = ["k0", "k1", "k2"]
    port = free_port()
    address = f"127.0.0.1:{port}"

    async def scenario() -> None:
        process = _serve(fresh_database_url, port, tmp_path, redis_server_url)
        try:
            await until_serving(address)
            tokens = [await register(address, n) for n in names]
            bots = [RandomBot(seed=i) for i in range(3)]
            # The bots keep reconnecting (SDK backoff) through the crash and the restart.
            async with playing(list(zip(bots, tokens, strict=True)), address):
                match_id = await create_match(address, "hart", names, seed=3)
                while sum(len(b.requests) for b in bots) < 20:
                    await asyncio.sleep(0.02)
                process.send_signal(signal.SIGKILL)
                process.wait(10)
                status, _, _ = await _stored(fresh_database_url, match_id)
                assert status == "running"
                process = _serve(fresh_database_url, port, tmp_path, redis_server_url)
                await until_serving(address)
                match = await wait_finished(address, match_id, timeout=timedelta(seconds=120))
            assert match.status == common_pb2.MATCH_STATUS_FINISHED
        finally:
            process.kill()
            process.wait(10)

    asyncio.run(scenario())
