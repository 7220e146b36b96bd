"""The `celery` queue in Redis: its lists, one per priority step, and how many messages wait."""

from __future__ import annotations

from typing import Any

QUEUE_LISTS = ("celery", *(f"celery\x06\x16{p}" for p in (3, 6, 9)))
"""kombu's names for the lists of priorities 0-2, 3-5, 6-8 and 9 (`workers.app.PRIORITIES`)."""


def queued(client: Any) -> int:
    """Messages waiting in the `celery` queue, every priority (`client`: a `redis.Redis`)."""
    return sum(int(client.llen(name)) for name in QUEUE_LISTS)
