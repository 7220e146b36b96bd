"""A Swiss tournament run by a real Celery worker across three referee processes, one of which is
killed mid-round: every table finishes, nothing is struck for the failover, every match is
rated exactly once."""

from __future__ import annotations

import asyncio
import signal
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from arena.storage import Database
from arena.tournament import rounds as tournaments
from tests.dbfixtures import isolated_redis
from tests.referee.fleet import Fleet
from tests.referee.harness import FAST_CLOCK, register
from tests.referee.test_scale_out import ThinkingBot
from tests.tournament.test_celery import Celery, worker_env
from tests.tournament.test_tournament_flow import _check_exactly_once

pytestmark = pytest.mark.integration


def _running_hosts(url: str, tid: int) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT host FROM matches WHERE tournament_id = %s AND status = 'running' "
            "AND host IS NOT NULL AND EXISTS (SELECT 1 FROM decisions WHERE match_id = id)",
            (tid,),
        ).fetchall()
    return [str(r[0]) for r in rows]


def test_a_tournament_across_three_referees_survives_the_kill_of_one(
    fresh_database_url: str,
) -> None:
    with isolated_redis() as redis_url, tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        fleet = Fleet(fresh_database_url, redis_url, 3, folder)

        async def scenario() -> int:
            await fleet.start_all()
            env = worker_env(fresh_database_url, redis_url, ",".join(fleet.addresses), tmp)
            celery = Celery(env, folder)
            names = [f"t{i}" for i in range(8)]
            tokens = [await register(fleet.addresses[i % 3], n) for i, n in enumerate(names)]
            bots = [ThinkingBot(seed=i) for i in range(8)]
            tasks = []
            for i, (bot, token) in enumerate(zip(bots, tokens, strict=True)):
                order = fleet.addresses[i % 3 :] + fleet.addresses[: i % 3]
                tasks.append(asyncio.create_task(bot.run_async(",".join(order), token)))
            db = await Database.open(fresh_database_url)
            try:
                celery.start_worker()
                celery.start_beat()
                await asyncio.sleep(1.0)
                tid = await tournaments.create_tournament(
                    db,
                    name="spread",
                    game="hart",
                    bot_names=names,
                    table_size=4,
                    rounds=3,
                    clock=FAST_CLOCK,
                    seed=5,
                )
                killed = None
                deadline = time.monotonic() + 300
                while True:
                    info = await tournaments.tournament(db, tid)
                    assert info is not None
                    if info.status.value == "finished":
                        break
                    hosts = _running_hosts(fresh_database_url, tid)
                    if killed is None and hosts:
                        killed = fleet.index_of(hosts[0])
                        fleet.signal(killed, signal.SIGKILL)
                    if time.monotonic() > deadline:
                        pytest.fail(f"tournament stuck:\n{celery.logs()}\n{fleet.log_tail()}")
                    await asyncio.sleep(0.2)
                assert killed is not None, "a referee was killed mid-round"
            finally:
                celery.stop()
                for bot in bots:
                    bot.stop()
                await asyncio.gather(*tasks, return_exceptions=True)
                await db.close()
            return tid

        try:
            tid = asyncio.run(scenario())
        finally:
            fleet.stop_all()
        _check_exactly_once(fresh_database_url, tid)
        with psycopg.connect(fresh_database_url) as conn:
            hosts, strikes, aborted = conn.execute(
                "SELECT count(DISTINCT m.host), coalesce(sum(s.strikes), 0), "
                "count(*) FILTER (WHERE m.status = 'aborted') "
                "FROM matches m JOIN seats s ON s.match_id = m.id WHERE m.tournament_id = %s",
                (tid,),
            ).fetchone() or (0, 0, 0)
        assert aborted == 0
        assert strikes == 0, "the failover struck nobody"
        assert hosts >= 2, "the tables were spread over the referees"
