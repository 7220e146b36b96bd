"""A version test across two referee processes survives the kill and restart of one of them."""

from __future__ import annotations

import asyncio
import logging
import signal
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from arena.sdk.client import StrategyBot
from arena.v1 import arena_pb2, bot_pb2
from tests.dbfixtures import isolated_redis
from tests.referee.fleet import Fleet
from tests.referee.harness import ADMIN_METADATA, register, stub
from tests.tournament.test_celery import Celery, worker_env
from tests.versiontest.test_real_play import _each_set_counted_once

pytestmark = pytest.mark.integration


class ThinkingStrategyBot(StrategyBot):
    """A reference strategy that thinks a little, so a match lasts long enough to be cut."""

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        await asyncio.sleep(0.01)
        return await super()._answer(request)


def _running_hosts(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT m.host FROM version_test_matches vm JOIN matches m ON m.id = vm.match_id"
            " WHERE m.status = 'running' AND m.host IS NOT NULL"
            " AND EXISTS (SELECT 1 FROM decisions d WHERE d.match_id = m.id)"
        ).fetchall()
    return [str(r[0]) for r in rows]


def _bot_states(bots: list[ThinkingStrategyBot], tasks: list[asyncio.Task[None]]) -> str:
    """Each bot's state, for a stuck run's message: a bot whose run ended says why, one still
    running says which referee it last heard from (a bot that never came back after the kill
    stalled a version test once, and its logs did not say which of the two it was)."""
    lines = []
    for bot, task in zip(bots, tasks, strict=True):
        if task.done():
            why = "cancelled" if task.cancelled() else repr(task.exception())
            state = f"run ended: {why}"
        else:
            state = f"running, last welcomed by {bot.following.referee or 'none'}"
        lines.append(f"bot {bot.bot_name or '?'}: {state}; problems {len(bot.problems)}")
    return "\n".join(lines)


def test_a_version_test_survives_a_referee_killed_and_restarted(
    fresh_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arena.sdk")  # a failure shows each bot's reconnects
    with isolated_redis() as redis_url, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        fleet = Fleet(fresh_database_url, redis_url, 2, folder)

        async def scenario() -> arena_pb2.VersionTest:
            await fleet.start_all()
            celery = Celery(
                worker_env(fresh_database_url, redis_url, ",".join(fleet.addresses), tmp), folder
            )
            kinds = {"heur": "heuristic", "rand": "random", "fill": "random"}
            bots, tasks = [], []
            for i, (name, kind) in enumerate(kinds.items()):
                token = await register(fleet.addresses[i % 2], name)
                bot = ThinkingStrategyBot(kind, seed=i)
                order = fleet.addresses[i % 2 :] + fleet.addresses[: i % 2]
                bots.append(bot)
                tasks.append(asyncio.create_task(bot.run_async(",".join(order), token)))
            channel, api = stub(fleet.addresses[0])
            try:
                await asyncio.sleep(1.0)
                request = arena_pb2.StartVersionTestRequest(
                    game="hart",
                    candidate="heur",
                    baseline="rand",
                    elo0=0.0,
                    elo1=100.0,
                    seats=3,
                    fillers=["fill"],
                )
                made = await api.StartVersionTest(request, metadata=ADMIN_METADATA)
                celery.start_worker()
                celery.start_beat()
                killed = None
                # Under pytest-timeout's 300 s, so a stuck test fails here and shows its logs.
                deadline = time.monotonic() + 240
                while True:
                    got = await api.GetVersionTest(
                        arena_pb2.GetVersionTestRequest(test_id=made.test_id)
                    )
                    if got.status != arena_pb2.VERSION_TEST_STATUS_RUNNING:
                        break
                    hosts = _running_hosts(fresh_database_url)
                    if killed is None and hosts and fleet.index_of(hosts[0]) == 1:
                        killed = 1  # not the one this test's channel talks to
                        fleet.signal(killed, signal.SIGKILL)
                        gone = fleet.processes[killed]
                        assert gone is not None
                        await asyncio.to_thread(gone.wait, 10)
                        fleet.start(killed)
                    if time.monotonic() > deadline:
                        pytest.fail(
                            f"test stuck:\n{got}\n{_bot_states(bots, tasks)}\n"
                            f"{celery.logs()}\n{fleet.log_tail()}"
                        )
                    await asyncio.sleep(0.2)
                assert killed is not None, "no test match ran on the referee to kill"
                # Every bot must still be playing: one stopped by a stale REPLACED after the
                # restart (BotReplaced) once left the test waiting for it.
                assert not any(t.done() for t in tasks), _bot_states(bots, tasks)
                return got
            finally:
                celery.stop()
                for bot in bots:
                    bot.stop()
                await asyncio.gather(*tasks, return_exceptions=True)
                await channel.close()

        try:
            result = asyncio.run(scenario())
        finally:
            fleet.stop_all()
    assert result.status == arena_pb2.VERSION_TEST_STATUS_H1, result
    _each_set_counted_once(fresh_database_url)
