"""A spectator's steps still to be sent, bounded: a watcher that falls too far behind is dropped."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Sequence
from datetime import timedelta

from arena.ops import metrics
from arena.referee.public_steps import PublicStep


class WatcherDropped(Exception):
    """The watcher fell more than its bound behind the match and was dropped."""


class Watcher:
    """One WatchMatch call's view of a running match: the steps before it joined, then a queue."""

    def __init__(self, backlog: Sequence[PublicStep], bound: int) -> None:
        self._backlog = list(backlog)
        """Steps played before the watcher joined (the runner holds them anyway)."""
        self._queue: deque[PublicStep] = deque()
        self.bound = bound
        """Steps published since it joined that it may have unread before it is dropped."""
        self.dropped = False
        self.closed = False
        self._wake = asyncio.Event()
        self._drop = asyncio.Event()

    def push(self, step: PublicStep) -> None:
        """Queue a newly played step, or drop the watcher if it is already `bound` behind."""
        if self.dropped or self.closed:
            return
        if len(self._queue) >= self.bound:
            self.dropped = True
            self._queue.clear()
            self._backlog.clear()
            metrics.SLOW_WATCHERS.inc()
            self._drop.set()
            self._wake.set()
            return
        self._queue.append(step)
        self._wake.set()

    def close(self) -> None:
        """The match ended: `next` returns None once the queued steps are taken."""
        self.closed = True
        self._wake.set()

    def failure(self) -> str:
        """What a dropped watcher is told."""
        return (
            f"you fell more than {self.bound} steps behind the match; "
            "read the stream faster or watch the replay when the match ends"
        )

    async def next(self) -> PublicStep | None:
        """The next step to send, None after the last; raises WatcherDropped once dropped."""
        if self._backlog and not self.dropped:
            return self._backlog.pop(0)
        while not self._queue and not self.closed and not self.dropped:
            self._wake.clear()
            await self._wake.wait()
        if self.dropped:
            raise WatcherDropped(self.failure())
        return self._queue.popleft() if self._queue else None

    async def pause(self, wait: timedelta) -> None:
        """Sleep `wait` (a spectator delay); raises WatcherDropped if dropped meanwhile."""
        with contextlib.suppress(TimeoutError):  # not wait_for, which may lose a cancel (3.11)
            async with asyncio.timeout(wait.total_seconds()):
                await self._drop.wait()
        if self.dropped:
            raise WatcherDropped(self.failure())
