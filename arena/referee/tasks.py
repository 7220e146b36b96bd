"""Stopping the referee's background tasks for sure.

A task asked to stop with `cancel()` can swallow the cancel: on Python 3.11 `asyncio.wait_for`
returns the inner result when it finishes just as the cancel arrives (gh-86296), and libraries
use it. The task then waits on its next queue or sleep as if nothing happened, and a referee's
stop that gathers it waits forever (a CI run's test of two referees hung that way).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)

RECANCEL_AFTER = 0.5
"""Seconds a cancelled task has to end before it is cancelled again."""


async def cancel_until_done(tasks: Sequence[asyncio.Task[None]]) -> None:
    """Cancel `tasks` and wait until every one has ended, cancelling again any still running."""
    rounds = 0
    while pending := [task for task in tasks if not task.done()]:
        if rounds:
            log.warning("task %s ignored a cancel; cancelling it again", pending[0].get_name())
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=RECANCEL_AFTER)
        rounds += 1
    await asyncio.gather(*tasks, return_exceptions=True)
