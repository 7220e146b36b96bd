"""Tournaments on a real Celery worker process, real Redis, real Postgres and a real referee."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from arena.sdk import Bot
from arena.tournament import rounds as tournaments
from arena.v1 import bot_pb2
from tests.dbfixtures import isolated_redis
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN, FAST_CLOCK, playing, register, running_referee
from tests.tournament.test_tournament_flow import _check_exactly_once

pytestmark = pytest.mark.integration


class SteadyBot(RandomBot):
    """A random bot that thinks for a few milliseconds, so a match lasts a couple of seconds."""

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        await asyncio.sleep(0.01)
        return await super()._answer(request)


class Celery:
    """A worker and beat as child processes, each in its own process group."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env = env
        self.folder = folder
        self.worker: subprocess.Popen[bytes] | None = None
        self.beat: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def _spawn(self, *args: str) -> subprocess.Popen[bytes]:
        self.starts += 1
        with (self.folder / f"celery-{self.starts}.log").open("ab") as log:
            return subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "workers.app", *args],
                env=self.env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )

    def start_worker(self) -> None:
        self.worker = self._spawn(
            "worker",
            "--concurrency",
            "2",
            "--loglevel",
            "INFO",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"w{self.starts}@%h",
        )

    def start_beat(self) -> None:
        self.beat = self._spawn(
            "beat", "--loglevel", "INFO", "--schedule", str(self.folder / "beat-schedule")
        )

    def kill_worker(self) -> None:
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(timeout=10)

    def stop(self) -> None:
        for process in (self.worker, self.beat):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in (self.worker, self.beat):
            if process is None:
                continue
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)

    def logs(self) -> str:
        return "\n".join(p.read_text()[-3000:] for p in sorted(self.folder.glob("celery-*.log")))


def worker_env(database_url: str, broker: str, referees: str, metrics_dir: str) -> dict[str, str]:
    """The environment of a test's Celery worker and beat: quick retries, no metrics ports."""
    return {
        **os.environ,
        "ARENA_DATABASE_URL": database_url,
        "ARENA_REDIS_URL": broker,
        "ARENA_ADMIN_TOKEN": ADMIN,
        "ARENA_REFEREE_ADDRESS": referees,
        "ARENA_VISIBILITY_TIMEOUT": "8",
        "ARENA_BEAT_EVERY": "0.5",
        "ARENA_REDISPATCH_AFTER": "30",
        "ARENA_RETRY_SECONDS": "0.5",
        "ARENA_WORKER_METRICS_PORT": "-1",
        "ARENA_BEAT_METRICS_PORT": "-1",
        "PROMETHEUS_MULTIPROC_DIR": metrics_dir,
    }


def _status(url: str, tid: int) -> tuple[str, int]:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT status::text, (SELECT count(*) FROM matches WHERE tournament_id = %s "
            "AND status = 'running') FROM tournaments WHERE id = %s",
            (tid, tid),
        ).fetchone()
    assert row is not None
    return str(row[0]), int(row[1])


def _run_tournament(database_url: str, kill_mid_round: bool) -> None:
    with isolated_redis() as broker, tempfile.TemporaryDirectory() as tmp:

        async def scenario() -> int:
            async with running_referee(database_url) as server:
                env = worker_env(database_url, broker, server.address, tmp)
                celery = Celery(env, Path(tmp))
                names = [f"c{i}" for i in range(8)]
                tokens = [await register(server.address, n) for n in names]
                bots: list[Bot] = [SteadyBot(seed=i) for i in range(8)]
                try:
                    celery.start_worker()
                    celery.start_beat()
                    async with playing(list(zip(bots, tokens, strict=True)), server.address):
                        tid = await tournaments.create_tournament(
                            server.referee.db,
                            name="celery",
                            game="hart",
                            bot_names=names,
                            table_size=4,
                            rounds=3,
                            clock=FAST_CLOCK,
                            seed=3,
                        )
                        killed = False
                        deadline = time.monotonic() + 240
                        while (state := _status(database_url, tid))[0] != "finished":
                            if kill_mid_round and not killed and state[1] > 0:
                                celery.kill_worker()  # SIGKILL mid-round, children included
                                killed = True
                                await asyncio.sleep(1.0)
                                celery.start_worker()
                            if time.monotonic() > deadline:
                                pytest.fail(f"tournament stuck in {state}:\n{celery.logs()}")
                            await asyncio.sleep(0.2)
                        assert killed == kill_mid_round
                finally:
                    celery.stop()
                return tid

        tid = asyncio.run(scenario())
        _check_exactly_once(database_url, tid)
        with psycopg.connect(database_url) as conn:
            rounds = conn.execute(
                "SELECT count(*) FROM rounds WHERE tournament_id = %s AND status = 'finished'",
                (tid,),
            ).fetchone()
            tables = conn.execute(
                "SELECT count(*), count(DISTINCT (round_no, table_no)) FROM matches "
                "WHERE tournament_id = %s",
                (tid,),
            ).fetchone()
        assert rounds is not None and rounds[0] == 3
        assert tables is not None and tables[0] == tables[1] == 6, "one match per table"


def test_three_round_tournament_on_a_celery_worker(fresh_database_url: str) -> None:
    _run_tournament(fresh_database_url, kill_mid_round=False)


def test_worker_killed_mid_round_loses_nothing_and_counts_nothing_twice(
    fresh_database_url: str,
) -> None:
    _run_tournament(fresh_database_url, kill_mid_round=True)
