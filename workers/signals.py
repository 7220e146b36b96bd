"""Celery signal hooks: structured logs, task metrics, and the metrics endpoints.

Metrics of prefork workers use Prometheus multiprocess mode: PROMETHEUS_MULTIPROC_DIR (set before
the worker starts; `arena up` gives each worker its own folder) holds every child's samples, and
the worker's main process serves the merged view on ARENA_WORKER_METRICS_PORT (default 9102).
Beat, a single process, keeps ordinary metrics and serves on ARENA_BEAT_METRICS_PORT (default
9103) the gauges it reads from Postgres and Redis every few seconds: tournaments by status, rounds
in progress and their age, the queue length and the top ratings.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import redis
from celery import signals
from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server

from arena.ops import metrics
from arena.ops.bind import BIND_ENV, http_host
from arena.ops.logs import configure_logging
from arena.ops.services import database_url, redis_url
from arena.storage.errors import StorageError
from arena.storage.sql import query
from workers.queues import queued

log = logging.getLogger(__name__)

GAUGE_EVERY = float(os.environ.get("ARENA_GAUGE_EVERY", "5"))
TOP_BOTS = 10


def _serve_metrics(port_variable: str, default: int, merged: bool) -> None:
    port = int(os.environ.get(port_variable, str(default)))
    if port < 0:
        return
    registry = REGISTRY
    if merged:
        registry = CollectorRegistry()
        # prometheus_client's multiprocess module has no annotations.
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    bind = http_host(os.environ.get(BIND_ENV, "0.0.0.0"))
    start_http_server(port, addr=bind, registry=registry)
    log.info("metrics on %s:%s", bind, port)


def _clear_multiprocess_dir() -> None:
    """Remove the samples of earlier runs (this process's own files are already in use)."""
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        if not stale.stem.endswith(f"_{os.getpid()}"):
            stale.unlink()


@signals.setup_logging.connect
def _logging(**_: Any) -> None:
    configure_logging("celery")


@signals.worker_init.connect
def _worker_metrics(**_: Any) -> None:
    _clear_multiprocess_dir()
    _serve_metrics("ARENA_WORKER_METRICS_PORT", 9102, merged=True)
    metrics.DB_ERRORS.labels("task")  # at 0, so the first failure is an increase to rate()


@signals.worker_process_shutdown.connect
def _child_gone(pid: int | None = None, **_: Any) -> None:
    # prometheus_client's multiprocess module has no annotations.
    multiprocess.mark_process_dead(pid or os.getpid())  # type: ignore[no-untyped-call]


@signals.task_postrun.connect
def _task_done(task: Any = None, state: str | None = None, **_: Any) -> None:
    name = getattr(task, "name", "unknown")
    metrics.TASKS.labels(name, (state or "unknown").lower()).inc()


@signals.task_failure.connect
def _task_failed(exception: BaseException | None = None, **_: Any) -> None:
    if isinstance(exception, StorageError):
        metrics.DB_ERRORS.labels("task").inc()


@signals.beat_init.connect
def _beat_metrics(**_: Any) -> None:
    _serve_metrics("ARENA_BEAT_METRICS_PORT", 9103, merged=False)
    metrics.DB_ERRORS.labels("gauges")  # at 0, so the first failure is an increase to rate()
    threading.Thread(target=_gauge_loop, name="arena-gauges", daemon=True).start()


def _gauge_loop() -> None:
    while True:
        try:
            publish_gauges()
        except Exception as exc:  # a dead database or Redis: count it, keep trying
            metrics.DB_ERRORS.labels("gauges").inc()
            log.warning("cannot read gauges: %s", exc)
        time.sleep(GAUGE_EVERY)


def publish_gauges() -> None:
    """Read the state gauges from Postgres and Redis once."""
    with psycopg.connect(database_url(), connect_timeout=5) as conn:
        counts: dict[str, int] = dict(conn.execute(query("tournament_gauges")).fetchall())
        for status in ("scheduled", "running", "finished", "cancelled"):
            metrics.TOURNAMENTS.labels(status).set(counts.get(status, 0))
        row = conn.execute(query("rounds_in_progress")).fetchone()
        assert row is not None
        metrics.ROUNDS_IN_PROGRESS.set(row[0])
        metrics.OLDEST_ROUND_AGE.set(float(row[1]))
        metrics.ROUND_EXPECTED.set(float(row[2]))
        top = conn.execute(query("top_ratings"), {"limit": TOP_BOTS}).fetchall()
    metrics.TOP_RATING.clear()
    for game, name, rating in top:
        metrics.TOP_RATING.labels(game, name).set(rating)
    client = redis.Redis.from_url(redis_url(), socket_timeout=5)
    try:
        metrics.QUEUE_LENGTH.labels("celery").set(queued(client))
    finally:
        client.close()
