"""Recurring tournaments: periods, catch-up once, exactly one edition per run, and a real beat."""

from __future__ import annotations

import asyncio
import hashlib
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest

from arena.storage import Database
from arena.tournament import schedules
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN, FAST_CLOCK, playing, register, running_referee
from tests.tournament.test_celery import Celery

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_periods_and_times_of_day_parse_or_say_what_is_wrong() -> None:
    assert schedules.parse_every("6h") == timedelta(hours=6)
    assert schedules.parse_every("90s") == timedelta(seconds=90)
    with pytest.raises(ValueError, match="bad period '6 hours'"):
        schedules.parse_every("6 hours")
    with pytest.raises(ValueError, match="bad period '0h'"):
        schedules.parse_every("0h")
    assert schedules.next_daily("02:00", NOW) == datetime(2026, 12, 1, 2, 0, tzinfo=UTC)
    assert schedules.next_daily("13:30", NOW) == datetime(2026, 11, 30, 13, 30, tzinfo=UTC)
    with pytest.raises(ValueError, match="bad time of day '25:00'"):
        schedules.next_daily("25:00", NOW)


def test_a_missed_start_is_caught_up_once() -> None:
    hour = timedelta(hours=1)
    # Beat was down for five periods: the next run is the first one after now, not five runs.
    assert schedules.following(NOW - 5 * hour - timedelta(minutes=1), hour, NOW) == NOW + timedelta(
        minutes=59
    )
    assert schedules.following(NOW, hour, NOW) == NOW + hour
    assert schedules.following(NOW + hour, hour, NOW) == NOW + 2 * hour


def _run(url: str, body: Callable[[Database], Awaitable[None]]) -> None:
    async def main() -> None:
        db = await Database.open(url)
        try:
            await body(db)
        finally:
            await db.close()

    asyncio.run(main())


@pytest.mark.integration
def test_due_schedules_create_one_edition_each_however_late_or_raced(
    migrated_database_url: str,
) -> None:
    async def nobody() -> list[str]:
        return []

    async def body(db: Database) -> None:
        names = [f"sch{i}" for i in range(4)]
        for name in names:
            await db.create_bot(name, hashlib.sha256(name.encode()).digest())
        late = await schedules.create_schedule(
            db, name="late", game="hart", table_size=4, every=timedelta(hours=1),
            first_run=NOW - timedelta(hours=5), bot_names=names,
        )  # fmt: skip
        await schedules.create_schedule(
            db, name="empty", game="hart", table_size=4, every=timedelta(hours=1),
            first_run=NOW - timedelta(hours=1),
        )  # fmt: skip
        with pytest.raises(ValueError, match="needs at least 3 entrants"):
            await schedules.create_schedule(
                db, name="tiny", game="hart", table_size=4, every=timedelta(hours=1),
                first_run=NOW, bot_names=names[:2],
            )  # fmt: skip
        with pytest.raises(LookupError, match="unknown bot 'ghost'"):
            await schedules.create_schedule(
                db, name="ghost", game="hart", table_size=4, every=timedelta(hours=1),
                first_run=NOW, bot_names=["ghost", *names],
            )  # fmt: skip
        async with db.transaction("own the schedule") as conn:  # as CreateSchedule records it
            await conn.execute("UPDATE schedules SET owner_id = 1 WHERE id = %s", [late])
        other = await Database.open(migrated_database_url)
        try:  # two beat ticks at once
            made = await asyncio.gather(
                schedules.run_due(db, nobody, NOW), schedules.run_due(other, nobody, NOW)
            )
        finally:
            await other.close()
        assert sorted(len(m) for m in made) == [0, 1], "one edition, however many ticks race"
        async with db.transaction("read the edition's owner") as conn:
            cursor = await conn.execute(
                "SELECT owner_id FROM tournaments WHERE id = %s", [max(made)[0]]
            )
            assert await cursor.fetchone() == (1,), "the schedule's owner owns its editions"
        assert await schedules.run_due(db, nobody, NOW) == []
        by_name = {s.name: s for s in await schedules.list_schedules(db)}
        assert by_name["late"].editions == 1 and by_name["late"].next_run == NOW + timedelta(
            hours=1
        )
        assert by_name["empty"].editions == 0, "no connected bots: the edition is skipped"
        await schedules.pause(db, late)
        assert await schedules.run_due(db, nobody, NOW + timedelta(hours=2)) == []
        await schedules.pause(db, late, paused=False)
        assert len(await schedules.run_due(db, nobody, NOW + timedelta(hours=2))) == 1
        await schedules.delete(db, late)
        with pytest.raises(LookupError, match=f"no schedule {late}"):
            await schedules.delete(db, late)

    _run(migrated_database_url, body)


@pytest.mark.integration
def test_a_real_beat_creates_two_editions_among_the_connected_bots(
    fresh_database_url: str, isolated_redis_url: str
) -> None:
    broker = isolated_redis_url  # a broker of its own: no stale tasks, nobody else's queue

    async def scenario(tmp: str) -> list[tuple[str, list[str]]]:
        async with running_referee(fresh_database_url) as server:
            env = {
                **os.environ,
                "ARENA_DATABASE_URL": fresh_database_url,
                "ARENA_REDIS_URL": broker,
                "ARENA_ADMIN_TOKEN": ADMIN,
                "ARENA_REFEREE_ADDRESS": server.address,
                "ARENA_BEAT_EVERY": "0.5",
                "ARENA_RETRY_SECONDS": "0.5",
                "ARENA_WORKER_METRICS_PORT": "-1",
                "ARENA_BEAT_METRICS_PORT": "-1",
                "PROMETHEUS_MULTIPROC_DIR": tmp,
            }
            celery = Celery(env, Path(tmp))
            names = [f"beat{i}" for i in range(4)]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(seed=i) for i in range(4)]
            await register(server.address, "absent")  # registered, never connected
            try:
                async with playing(list(zip(bots, tokens, strict=True)), server.address):
                    await schedules.create_schedule(
                        server.referee.db, name="every 3s", game="hart", table_size=4,
                        every=timedelta(seconds=3), first_run=datetime.now(UTC), clock=FAST_CLOCK,
                    )  # fmt: skip
                    celery.start_worker()
                    celery.start_beat()
                    deadline = time.monotonic() + 120
                    while len(editions := _editions(fresh_database_url)) < 2:
                        if time.monotonic() > deadline:
                            pytest.fail(f"editions so far {editions}:\n{celery.logs()}")
                        await asyncio.sleep(0.2)
            finally:
                celery.stop()
            return editions

    with tempfile.TemporaryDirectory() as tmp:
        editions = asyncio.run(scenario(tmp))
    assert [name for name, _ in editions[:2]] == ["every 3s #1", "every 3s #2"]
    for _, entrants in editions:
        assert entrants == ["beat0", "beat1", "beat2", "beat3"]


def _editions(url: str) -> list[tuple[str, list[str]]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT t.name, array_agg(b.name ORDER BY b.name) FROM tournaments t"
            " JOIN entries e ON e.tournament_id = t.id JOIN bots b ON b.id = e.bot_id"
            " GROUP BY t.id, t.name ORDER BY t.id"
        ).fetchall()
    return [(str(name), list(bots)) for name, bots in rows]
