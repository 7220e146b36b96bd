"""The Celery app: Redis broker and result backend from ARENA_REDIS_URL (or an embedded Redis).

Tasks are idempotent, so they are acknowledged late and re-queued when a worker dies mid-task.
With the Redis transport an unacknowledged message returns to the queue after the visibility
timeout (`ARENA_VISIBILITY_TIMEOUT`, seconds); a task still running then may run twice, which the
idempotent tasks make harmless.
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

BEAT_EVERY = float(os.environ.get("ARENA_BEAT_EVERY", "2.0"))
VISIBILITY_TIMEOUT = int(os.environ.get("ARENA_VISIBILITY_TIMEOUT", "120"))


def make_app() -> Celery:
    """Build the Celery app from the environment."""
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
        beat_schedule={
            "start-due-tournaments": {"task": "arena.start_due", "schedule": BEAT_EVERY},
            "watch-rounds": {"task": "arena.watchdog", "schedule": BEAT_EVERY * 5},
            "run-schedules": {"task": "arena.run_schedules", "schedule": BEAT_EVERY},
            "ladder-tick": {"task": "arena.ladder_tick", "schedule": BEAT_EVERY},
        },
    )
    return app


app = make_app()

import workers.signals  # noqa: E402,F401  (metrics and logging hooks need the app)
