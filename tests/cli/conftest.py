"""A real referee on a loopback port, run in a thread so CLI commands can call `asyncio.run`."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from arena.ops.tls import ServerTls
from tests.referee.harness import ADMIN, register, running_referee


class RefereeThread:
    """A referee serving from its own event loop in a background thread."""

    def __init__(self, database_url: str, tls: ServerTls | None = None) -> None:
        self.database_url = database_url
        self.tls = tls
        self.address = ""
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._serve())
        except BaseException as exc:  # reported to the test thread by start()
            self._error = exc
            self._ready.set()
        finally:
            self.loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        async with running_referee(self.database_url, tls=self.tls) as running:
            self.address = f"127.0.0.1:{running.port}"
            self._ready.set()
            await self._stop.wait()

    def start(self) -> None:
        """Start serving; return once the referee listens."""
        self._thread.start()
        assert self._ready.wait(60), "the referee did not start"
        if self._error is not None:
            raise self._error

    def call(self, coroutine: object) -> object:
        """Run a coroutine on the referee's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(30)  # type: ignore[arg-type]

    def stop(self) -> None:
        """Stop serving and join the thread."""
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


@pytest.fixture(scope="module")
def referee(migrated_database_url: str) -> Iterator[RefereeThread]:
    """A referee with bots `alice`, `bob` and `carol` registered (not connected)."""
    thread = RefereeThread(migrated_database_url)
    thread.start()
    for name in ("alice", "bob", "carol"):
        thread.call(register(thread.address, name))
    yield thread
    thread.stop()


__all__ = ["ADMIN", "RefereeThread"]
