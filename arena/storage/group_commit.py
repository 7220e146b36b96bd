"""Group commit of the action log: one transaction carries every decision of the last ~2 ms.

A referee must not send the next decision request before the previous decision is durable, but
a commit per row caps out near 2,500 rows/s. `DecisionWriter.write` therefore parks the caller on
a future; a background task gathers the rows that arrive within `max_delay` of the oldest one (or
until `max_rows`), hands them to the sink in one transaction and wakes every caller with its own
outcome. If the transaction fails, every caller in it gets the exception. Up to `max_in_flight`
transactions commit at once, so rows that arrive during one commit need not wait for it to end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from arena.storage.errors import StorageError
from arena.storage.rows import DecisionRow


class DecisionSink(Protocol):
    """Where batches go: `arena.storage.db.Database` in production, a fake in tests."""

    async def write_decisions(self, rows: Sequence[DecisionRow]) -> Sequence[StorageError | None]:
        """Commit `rows` in one transaction; per row, the error that refused it (or None).

        Raises when nothing was committed.
        """
        ...


@dataclass(slots=True)
class _Waiting:
    row: DecisionRow
    future: asyncio.Future[None]
    arrived: float


MAX_IN_FLIGHT = 4
"""Transactions committing at once. While one waits for its commit (fsync), the rows that arrive
meanwhile form the next batch and commit beside it, instead of waiting for it: under 64
concurrent matches a single committer was the referee's ceiling (bench/README.md)."""


class DecisionWriter:
    """Writes decisions with group commit; `write` returns once its row is committed."""

    def __init__(
        self,
        sink: DecisionSink,
        *,
        max_delay: timedelta = timedelta(milliseconds=2),
        max_rows: int = 500,
        max_in_flight: int = MAX_IN_FLIGHT,
    ) -> None:
        if max_rows < 1:
            raise ValueError(f"max_rows must be at least 1, got {max_rows}")
        if max_in_flight < 1:
            raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
        self._slots = asyncio.Semaphore(max_in_flight)
        self._in_flight: set[asyncio.Task[None]] = set()
        self._sink = sink
        self._max_delay = max_delay.total_seconds()
        self._max_rows = max_rows
        self._waiting: list[_Waiting] = []
        self._wakeup = asyncio.Event()
        self._full = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.batches = 0
        """Transactions committed (or attempted) so far."""
        self.rows = 0
        """Rows handed to the sink so far."""

    @property
    def is_running(self) -> bool:
        """Whether the background task is accepting rows."""
        return self._task is not None and not self._stopping

    async def start(self) -> None:
        """Start the background task (in the running event loop)."""
        if self._task is not None:
            raise RuntimeError("the decision writer is already started")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="decision-writer")

    async def stop(self) -> None:
        """Write what is pending, then stop the background task."""
        if self._task is None or self._stopping:
            return
        self._stopping = True
        self._wakeup.set()
        self._full.set()
        await self._task

    async def write(self, row: DecisionRow) -> None:
        """Log `row`; returns once it is committed, raises what refused it or the batch."""
        if not self.is_running:
            raise StorageError(
                f"decision {row.number} of match {row.match_id}: the decision writer is not running"
            )
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._waiting.append(_Waiting(row, future, loop.time()))
        self._wakeup.set()
        if len(self._waiting) >= self._max_rows:
            self._full.set()
        await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self._wakeup.wait()
                if not self._waiting:
                    if self._stopping:
                        if self._in_flight:
                            await asyncio.gather(*self._in_flight, return_exceptions=True)
                        return
                    self._wakeup.clear()
                    continue
                async with self._slots:  # wait for a free committer, gathering rows meanwhile
                    pass
                delay = self._waiting[0].arrived + self._max_delay - loop.time()
                if delay > 0 and len(self._waiting) < self._max_rows and not self._stopping:
                    # wait_for may lose a cancel on 3.11 (arena/referee/tasks.py), but this
                    # task is stopped by `_stopping`, never cancelled; asyncio.timeout measured
                    # about 1.09x its CPU per decision here (3 pairs, bench/referee.py).
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._full.wait(), delay)
                batch = self._waiting[: self._max_rows]
                del self._waiting[: self._max_rows]
                if len(self._waiting) < self._max_rows and not self._stopping:
                    self._full.clear()
                await self._slots.acquire()
                task = loop.create_task(self._commit_and_release(batch))
                self._in_flight.add(task)
                task.add_done_callback(self._in_flight.discard)
        finally:
            leftover, self._waiting = self._waiting, []
            self._stopping = True
            for waiting in leftover:
                if not waiting.future.done():
                    waiting.future.set_exception(
                        StorageError("the decision writer stopped before writing this decision")
                    )

    async def _commit_and_release(self, batch: list[_Waiting]) -> None:
        try:
            await self._commit(batch)
        finally:
            self._slots.release()

    async def _commit(self, batch: list[_Waiting]) -> None:
        self.batches += 1
        self.rows += len(batch)
        try:
            outcomes = await self._sink.write_decisions([w.row for w in batch])
        except BaseException as exc:  # every waiter learns why its batch failed
            error = exc if isinstance(exc, Exception) else StorageError("decision writer cancelled")
            for waiting in batch:
                if not waiting.future.done():
                    waiting.future.set_exception(error)
            if error is not exc:
                raise
            return
        if len(outcomes) != len(batch):
            error = StorageError(
                f"the sink answered {len(outcomes)} outcomes for {len(batch)} rows"
            )
            outcomes = [error] * len(batch)
        for waiting, outcome in zip(batch, outcomes, strict=True):
            if waiting.future.done():
                continue
            if outcome is None:
                waiting.future.set_result(None)
            else:
                waiting.future.set_exception(outcome)
