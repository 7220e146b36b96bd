"""The Celery app: Redis broker and result backend from ARENA_REDIS_URL (or an embedded Redis).

Tasks are idempotent, so they are acknowledged late and re-queued when a worker dies mid-task.
With the Redis transport an unacknowledged message returns to the queue after the visibility
timeout (`ARENA_VISIBILITY_TIMEOUT`, seconds); a task still running then may run twice, which the
idempotent tasks make harmless.

One queue, three priorities (`PRIORITIES`; with Redis a lower number is fetched first): closing a
round, starting a tournament and the watchdog never wait behind beat's ticks or a round's table
tasks, and beat's ticks expire (`tick_expiry`) instead of piling up while the workers are slow.
Found by the chaos soak (bench/chaos.py): with every task first in, first out, a Postgres stop
(each task waiting for its pool), a killed worker and table tasks holding slots for whole matches
let hundreds of stale ticks queue up, and a round whose tables were all decided waited minutes for
its close (tests/tournament/test_close_first.py).
"""

from __future__ import annotations

import os
import sys
import tempfile

# Prefork children write their samples to one folder (Prometheus multiprocess mode), merged by the
# worker's main process. It must be set before prometheus_client is first imported, so before
# anything from arena. Beat is a single process and keeps ordinary in-memory metrics.
if "beat" in sys.argv:
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
elif "worker" in sys.argv and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="arena-metrics-")

from celery import Celery

from arena.ops.services import redis_url
from workers import broker

BEAT_EVERY = float(os.environ.get("ARENA_BEAT_EVERY", "2.0"))
VISIBILITY_TIMEOUT = int(os.environ.get("ARENA_VISIBILITY_TIMEOUT", "120"))

CONTROL, TICK, TABLE = 0, 3, 6
"""Priorities (kombu's Redis transport serves 0 first, then 3, 6, 9)."""
PRIORITIES = {
    "arena.close_round": CONTROL,
    "arena.start_tournament": CONTROL,
    "arena.watchdog": CONTROL,
    "arena.start_due": TICK,
    "arena.run_schedules": TICK,
    "arena.ladder_tick": TICK,
    "arena.version_test_tick": TICK,
    "arena.play_table": TABLE,
}
"""Each task's priority: a table's task holds a worker slot for as long as its match plays, so it
comes last; beat's ticks are short; a round's close and the watchdog's repairs come first."""


def tick_expiry(every: float) -> float:
    """Seconds after which a tick sent every `every` seconds is dropped unrun: a newer one is
    queued by then, and running a backlog of stale ticks only delays everything behind them."""
    return max(10.0, 5 * every)


def _tick(task: str, every: float) -> dict[str, object]:
    return {"task": task, "schedule": every, "options": {"expires": tick_expiry(every)}}


def make_app() -> Celery:
    """Build the Celery app from the environment."""
    broker.install()  # before any broker connection resolves its transport
    url = redis_url()
    app = Celery("arena", broker=url, backend=url, include=["workers.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        worker_prefetch_multiplier=1,
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        timezone="UTC",
        enable_utc=True,
        result_expires=24 * 3600,
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
        result_backend_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        task_routes={name: {"priority": p} for name, p in PRIORITIES.items()},
        beat_schedule={
            "start-due-tournaments": _tick("arena.start_due", BEAT_EVERY),
            "watch-rounds": _tick("arena.watchdog", BEAT_EVERY * 5),
            "run-schedules": _tick("arena.run_schedules", BEAT_EVERY),
            "ladder-tick": _tick("arena.ladder_tick", BEAT_EVERY),
            "version-test-tick": _tick("arena.version_test_tick", BEAT_EVERY),
        },
    )
    return app


app = make_app()

import workers.signals  # noqa: E402,F401  (metrics and logging hooks need the app)
