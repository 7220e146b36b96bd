"""Is Postgres there? A background probe that marks a `Database` down and up as it finds it.

While the probe finds the database unreachable, `Database.available` is False and every call
fails at once with `Unavailable`; when it answers again the pool is replaced by a fresh one, so
play resumes within about one probe interval instead of after the pool's reconnection backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import psycopg

from arena.storage.db import Database

log = logging.getLogger(__name__)

Listener = Callable[[bool], Awaitable[None]]


class DatabaseProbe:
    """Runs `SELECT 1` on its own connection every `interval`; tells listeners of changes."""

    def __init__(
        self,
        db: Database,
        interval: timedelta = timedelta(milliseconds=500),
        timeout: timedelta = timedelta(seconds=1),
        failures_before_down: int = 3,
    ) -> None:
        self.db = db
        self.failures_before_down = failures_before_down
        """Consecutive failed probes before the database counts as down: one slow answer (a busy
        machine, an event loop that lagged past the timeout) must not fail every call at once."""
        self._failures = 0
        self.interval = interval
        self.timeout = timeout
        self.listeners: list[Listener] = []
        """Called with True (back) or False (gone) whenever the database's state changes."""
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._task: asyncio.Task[None] | None = None

    async def check(self) -> bool:
        """One probe: whether Postgres answers within the timeout."""
        try:
            async with asyncio.timeout(self.timeout.total_seconds()):
                if self._conn is None or self._conn.closed:
                    self._conn = await psycopg.AsyncConnection.connect(
                        self.db.url,
                        autocommit=True,
                        connect_timeout=max(1, int(self.timeout.total_seconds())),
                    )
                await self._conn.execute("SELECT 1")
            return True
        except (psycopg.Error, OSError, TimeoutError):
            await self._drop()
            return False

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):  # already broken: nothing to close cleanly
                await conn.close()

    async def run(self) -> None:
        """Probe until cancelled."""
        while True:
            answered = await self.check()
            self._failures = 0 if answered else self._failures + 1
            up = answered or (self.db.available and self._failures < self.failures_before_down)
            if up != self.db.available:
                await self.db.mark_available(up)
                if up == self.db.available:
                    log.log(
                        logging.INFO if up else logging.ERROR,
                        "the database is %s",
                        "reachable again" if up else "unreachable",
                    )
                    for listener in self.listeners:
                        await listener(up)
            await asyncio.sleep(self.interval.total_seconds())

    def start(self) -> None:
        """Start probing in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="database-probe")

    async def stop(self) -> None:
        """Stop probing and close the probe's connection."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._drop()
