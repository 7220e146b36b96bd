"""The referee's storage calls for a match: retried while the database is down, bounded on abort."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from arena.ops import metrics
from arena.referee.store import MatchStore
from arena.storage.errors import Conflict, Fenced, NotFound, StorageError, Unavailable

log = logging.getLogger(__name__)

DB_RETRY_MAX = timedelta(seconds=1)
"""Longest pause between retries of a storage call: play resumes within it once Postgres is back."""
DB_RETRY_FIRST = timedelta(milliseconds=50)
"""The first pause before a storage call is retried; each next one doubles, up to the max."""
ABORT_STORE_ATTEMPTS = 5


async def with_db_retry(
    match_id: int, operation: str, call: Callable[..., Awaitable[Any]], *args: Any
) -> None:
    """Retry a storage call while the database is unavailable: the match pauses rather than
    lose a step. Any other storage error (a conflict, a missing row) will not go away by
    waiting: it propagates, and the runner's caller aborts the match."""
    delay = DB_RETRY_FIRST
    while True:
        try:
            await call(*args)
            return
        except Unavailable as exc:  # the database is down: wait and retry
            metrics.DB_ERRORS.labels(operation).inc()
            log.error(
                "match %s: %s failed (%s); retrying in %.2fs",
                match_id,
                operation,
                exc,
                delay.total_seconds(),
            )
            await asyncio.sleep(delay.total_seconds())
            delay = min(delay * 2, DB_RETRY_MAX)
        except Fenced:
            # Another referee took the match over while this one stalled: the database did
            # its job (counted as arena_referee_fenced_writes_total). Counted here, every
            # takeover of a paused referee kept ArenaDatabaseErrors firing for minutes after
            # Postgres was fine (the 30-minute chaos soak's `alerts` check).
            raise
        except StorageError:
            metrics.DB_ERRORS.labels(operation).inc()
            raise


async def store_abort(store: MatchStore, match_id: int, reason: str, epoch: int) -> bool:
    """Store `match_id` as aborted under lease `epoch`, trying a few times only; False if it had
    already ended (or is gone, or another referee hosts it now), so there was nothing to abort."""
    for attempt in range(ABORT_STORE_ATTEMPTS):
        try:
            await store.abort_match(match_id, reason, epoch)
            return True
        except (Conflict, NotFound) as exc:  # already ended or gone: nothing to store
            log.warning("match %s: not stored as aborted (%s)", match_id, exc)
            return False
        except StorageError as exc:
            metrics.DB_ERRORS.labels("abort_match").inc()
            log.error("match %s: storing the abort failed (%s)", match_id, exc)
            await asyncio.sleep((DB_RETRY_FIRST * 2**attempt).total_seconds())
    return True
