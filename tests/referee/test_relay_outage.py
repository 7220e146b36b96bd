"""Redis stops and starts under two referees: a message the relay could not deliver meanwhile is
sent once Redis is back, so a healthy bot connected to the other referee gets no strike.

Real referee processes, a real Redis of the test's own (stopped and started on the same port),
real Postgres.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from arena.ops.ports import free_port
from arena.ops.services import redis_server
from arena.v1 import bot_pb2
from tests.referee.bots import RandomBot
from tests.referee.fleet import Fleet
from tests.referee.harness import register
from tests.referee.test_scale_out import create, get_match, until_decisions, until_ended

pytestmark = pytest.mark.integration

OUTAGE = 2.0
"""Seconds Redis is down: with a heartbeat every second, no registry entry (TTL 5 s) lapses, so
nothing but the relay's own resending makes good what was lost (no referee is taken for dead
and its bots announced again, which would have the host send its open requests again)."""
PER_DECISION = 8.0
"""Long enough for the outage and the recovery; a lost message becomes a timeout strike."""


class RestartableRedis:
    """A Redis server on a fixed loopback port that the test stops and starts again."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        args += [
            "--save",
            "60 1",
            "--appendonly",
            "no",
            "--logfile",
            str(self.folder / "redis.log"),
        ]
        self.process = subprocess.Popen(
            [str(redis_server()), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        until = time.monotonic() + 10
        while not self.is_up():
            assert time.monotonic() < until, "the test's Redis did not start"
            time.sleep(0.02)

    def is_up(self) -> bool:
        probe = subprocess.run(
            [str(redis_server().with_name("redis-cli")), "-p", str(self.port), "ping"],
            capture_output=True,
            check=False,
        )
        return probe.stdout.strip() == b"PONG"

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            process.send_signal(signal.SIGTERM)  # saves its data, as a real restart does
            process.wait(10)


@contextlib.contextmanager
def restartable_redis() -> Iterator[RestartableRedis]:
    with tempfile.TemporaryDirectory(prefix="arena-test-redis-") as folder:
        server = RestartableRedis(Path(folder))
        server.start()
        try:
            yield server
        finally:
            server.stop()


class GatedBot(RandomBot):
    """A random bot that, once `hold` is set, keeps its answers until `gate` opens."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.hold = False
        self.gate = asyncio.Event()
        self.waiting = asyncio.Event()

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        if self.hold:
            self.waiting.set()
            await self.gate.wait()
        return await super()._answer(request)


@contextlib.asynccontextmanager
async def two_bots(fleet: Fleet, tokens: list[str]) -> AsyncIterator[list[GatedBot]]:
    """Bot i plays through referee i only."""
    bots = [GatedBot(seed=i) for i in range(2)]
    tasks = [
        asyncio.create_task(bot.run_async(fleet.addresses[i], token))
        for i, (bot, token) in enumerate(zip(bots, tokens, strict=True))
    ]
    try:
        await asyncio.sleep(1.0)  # both streams open and announced
        yield bots
    finally:
        for bot in bots:
            bot.stop()
        await asyncio.gather(*tasks, return_exceptions=True)


@pytest.mark.parametrize("lost", ["answer", "request"])
def test_a_redis_outage_costs_a_bot_on_another_referee_no_strike(
    fresh_database_url: str, lost: str
) -> None:
    """`answer`: the remote bot answers while Redis is down (its referee's FROM_BOT is lost
    today); `request`: the host's bot answers, so the next request for the remote bot goes out
    while Redis is down (the host's TO_BOT is lost today)."""

    async def scenario() -> None:
        with restartable_redis() as redis, tempfile.TemporaryDirectory() as logs:
            fleet = Fleet(fresh_database_url, redis.url, 2, Path(logs), per_decision=PER_DECISION)
            try:
                await fleet.start_all()
                names = ["near", "far"]
                tokens = [await register(fleet.addresses[0], n) for n in names]
                async with two_bots(fleet, tokens) as bots:
                    match_id = await create(fleet.addresses[0], "crossing", names, seed=3)
                    await until_decisions(fleet, match_id, 4)
                    host = fleet.index_of((await get_match(fleet, match_id)).host)
                    remote, local = bots[1 - host], bots[host]
                    gated = remote if lost == "answer" else local
                    gated.hold = True
                    await asyncio.wait_for(gated.waiting.wait(), 60)
                    redis.stop()
                    gated.hold = False
                    gated.gate.set()  # answered while Redis is down
                    await asyncio.sleep(OUTAGE)
                    redis.start()
                    await until_ended(fleet, [match_id], timeout=180)
                    match = await get_match(fleet, match_id)
                    assert [s.strikes for s in match.seats] == [0, 0], fleet.log_tail()
                    timeouts = [
                        p
                        for b in bots
                        for p in b.problems
                        if p.kind == bot_pb2.PROBLEM_KIND_TIMEOUT
                    ]
                    assert timeouts == []
                    assert len(remote.requests) > 0
            except BaseException:
                print(fleet.log_tail())
                raise
            finally:
                fleet.stop_all()

    asyncio.run(scenario())
