"""A round's close never waits behind beat's ticks or table tasks, and stale ticks are dropped.

Regression of the chaos soak (bench/chaos.py --minutes 7 --seed 27 --kinds
worker-kill,redis-stop,postgres-stop): every task went through one first-in-first-out queue, and
beat's ticks (five every 2 s) never expired. While Postgres was down each task waited for its pool,
a killed worker left half the slots, and table tasks held slots for whole matches, so ticks piled up
(220 queued, 43 copies of each); the watchdog's ticks ran only after them, and the close each one
sent went to the back of the queue again. A round whose last table was decided at 07:25:12 was
closed at 07:26:59. The same backlog fits the three rounds the 30-minute soak of seed 27 left open
(docs/operations.md, "Rounds slow to close after overlapping faults").
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
import redis
from celery import Celery

from tests.dbfixtures import isolated_redis
from workers.queues import queued

pytestmark = pytest.mark.integration

TICKS = ("arena.start_due", "arena.run_schedules", "arena.ladder_tick", "arena.version_test_tick")


@pytest.fixture
def app(monkeypatch: pytest.MonkeyPatch) -> Iterator[Celery]:
    """The workers' Celery app, as `workers.app` builds it, on a Redis of the test's own."""
    with isolated_redis() as url:
        monkeypatch.setenv("ARENA_REDIS_URL", url)
        # Imported once the URL is set: the module builds an app on import, and with no
        # ARENA_REDIS_URL that app would start an embedded Redis in the user's data directory.
        from workers.app import make_app

        built = make_app()
        yield built
        built.close()


def _send_ticks(app: Celery, times: int) -> None:
    """What beat sends, with the options of its schedule, `times` rounds over."""
    entries = [e for e in app.conf.beat_schedule.values() if e["task"] in TICKS]
    assert len(entries) == len(TICKS)
    for _ in range(times):
        for entry in entries:
            app.send_task(entry["task"], **entry.get("options", {}))


def _fetched(app: Celery) -> Iterator[tuple[str, dict[str, Any]]]:
    """The messages in the order a worker fetches them: (task name, headers)."""
    with app.connection_for_read() as conn:
        channel = conn.default_channel
        while (message := channel.basic_get("celery", no_ack=True)) is not None:
            yield message.headers["task"], message.headers


def test_a_close_is_fetched_before_queued_ticks_and_table_tasks(app: Celery) -> None:
    _send_ticks(app, 40)
    app.send_task("arena.play_table", args=[1, 2, 1])
    app.send_task("arena.close_round", args=[[], 1, 1])  # the chord's callback, or a nudge
    app.send_task("arena.watchdog", **app.conf.beat_schedule["watch-rounds"].get("options", {}))
    assert _queued(app) == 4 * 40 + 3, "the queue-length gauge counts every priority"
    order = [name for name, _ in _fetched(app)]
    assert len(order) == 4 * 40 + 3
    assert order[:2] == ["arena.close_round", "arena.watchdog"]
    # A table's task holds a worker slot for a whole match: it comes after the short ticks.
    assert order[-1] == "arena.play_table"


def test_beats_ticks_expire_instead_of_piling_up(app: Celery) -> None:
    sent = time.time()
    _send_ticks(app, 1)
    fetched = list(_fetched(app))
    assert sorted(name for name, _ in fetched) == sorted(TICKS)
    for name, headers in fetched:
        # A worker drops a message past its `expires` without running it.
        assert headers.get("expires"), f"{name} never expires"
        expires = datetime.fromisoformat(headers["expires"]).timestamp()
        assert sent < expires <= time.time() + 60, f"{name} expires at {headers['expires']}"


def _queued(app: Celery) -> int:
    client = redis.Redis.from_url(app.conf.broker_url)
    try:
        return queued(client)
    finally:
        client.close()
