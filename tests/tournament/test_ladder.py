"""The continuous ladder: even games, similar ratings, and a real referee, worker and beat."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest

from arena.tournament import ladder
from arena.tournament.ladder import choose_tables
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN, FAST_CLOCK, playing, register, running_referee
from tests.tournament.test_celery import Celery


def test_the_fewest_games_sit_first_and_meet_the_nearest_ratings() -> None:
    ratings = {1: 1500.0, 2: 1900.0, 3: 1510.0, 4: 1880.0, 5: 1495.0, 6: 1905.0}
    tables = choose_tables([1, 2, 3, 4, 5, 6], {}, ratings, 3)
    assert sorted(sorted(t) for t in tables) == [[1, 3, 5], [2, 4, 6]]
    # Bot 2 is two games behind: it plays now, with the free bots nearest its rating.
    games = {1: 5, 2: 3, 3: 5, 4: 5, 5: 5, 6: 5}
    first = choose_tables([1, 2, 3, 4, 5, 6], games, ratings, 3)[0]
    assert first[0] == 2 and sorted(first) == [2, 4, 6]
    assert choose_tables([1, 2], {}, ratings, 3) == []  # too few free bots: no table


@pytest.mark.integration
def test_a_ladder_keeps_six_bots_playing_evenly_and_rates_every_match_once(
    fresh_database_url: str, isolated_redis_url: str
) -> None:
    broker = isolated_redis_url  # a broker of its own: no stale tasks, nobody else's queue
    wanted = 8

    async def scenario(tmp: str) -> None:
        async with running_referee(fresh_database_url) as server:
            env = {
                **os.environ,
                "ARENA_DATABASE_URL": fresh_database_url,
                "ARENA_REDIS_URL": broker,
                "ARENA_ADMIN_TOKEN": ADMIN,
                "ARENA_REFEREE_ADDRESS": server.address,
                "ARENA_BEAT_EVERY": "0.5",
                "ARENA_WORKER_METRICS_PORT": "-1",
                "ARENA_BEAT_METRICS_PORT": "-1",
                "PROMETHEUS_MULTIPROC_DIR": tmp,
            }
            celery = Celery(env, Path(tmp))
            names = [f"lad{i}" for i in range(6)]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(seed=i) for i in range(6)]
            db = server.referee.db
            try:
                async with playing(list(zip(bots, tokens, strict=True)), server.address):
                    await ladder.start(db, "hart", 3, concurrency=1, clock=FAST_CLOCK)
                    celery.start_worker()
                    celery.start_beat()
                    deadline = time.monotonic() + 180
                    while _finished(fresh_database_url) < wanted:
                        if time.monotonic() > deadline:
                            pytest.fail(f"ladder stalled:\n{celery.logs()}")
                        await asyncio.sleep(0.2)
                    await ladder.stop(db, "hart")
                    while _unfinished(fresh_database_url):  # running ones finish
                        if time.monotonic() > deadline:
                            pytest.fail(f"ladder matches never finished:\n{celery.logs()}")
                        await asyncio.sleep(0.2)
            finally:
                celery.stop()
            with pytest.raises(LookupError, match="no ladder for 'crossing'"):
                await ladder.stop(db, "crossing")

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(scenario(tmp))
    with psycopg.connect(fresh_database_url) as conn:
        seats = conn.execute(
            "SELECT s.match_id, s.bot_id FROM ladder_matches l JOIN seats s"
            " ON s.match_id = l.match_id"
        ).fetchall()
        per_bot = Counter(bot for _, bot in seats)
        assert len(per_bot) == 6 and max(per_bot.values()) - min(per_bot.values()) <= 2
        rated = conn.execute(
            "SELECT m.id, m.seats, m.rated, (SELECT count(*) FROM rating_changes c"
            " WHERE c.match_id = m.id) FROM ladder_matches l JOIN matches m ON m.id = l.match_id"
        ).fetchall()
    assert len(rated) >= wanted
    for match_id, seat_count, is_rated, changes in rated:
        assert is_rated and changes == seat_count, f"match {match_id} rated {changes} times"


def _finished(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM ladder_matches l JOIN matches m ON m.id = l.match_id"
            " WHERE m.status = 'finished'"
        ).fetchone()
    return int(row[0]) if row else 0


def _unfinished(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM matches WHERE status IN ('pending', 'running')"
        ).fetchone()
    return int(row[0]) if row else 0
