"""Live JSON pushed to browsers: a tournament's standings and the home page's live list, read
once per change check per web process, whoever watches, and sent as Server-Sent Events.

Unlike a match's steps these are states, not logs: a subscriber gets the newest version on
connecting and each new one after (an `update` event whose id is the version). A feed checks its
source every `interval`, and at once when a referee says a match ended (`LiveHub.news`); it stops
when its last subscriber leaves, or after sending a state that says it is over.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any

from arena.storage.errors import StorageError
from arena.web.metrics import SUBSCRIBERS

log = logging.getLogger(__name__)

Loader = Callable[[], Awaitable[dict[str, Any]]]
OVER = ("finished", "cancelled")
"""A state whose "status" is one of these is the last one."""


class JsonFeed:
    """One live JSON document in this process: its newest version, encoded once."""

    def __init__(self, key: str, loader: Loader) -> None:
        self.key = key
        self.loader = loader
        self.message = b""
        self._data = ""
        self.version = 0
        self.over = False
        self.reads = 0
        self.subscribers = 0
        self.poked = asyncio.Event()
        self._changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def publish(self, state: dict[str, Any]) -> None:
        """Send `state` to every subscriber if it differs from the last one."""
        data = json.dumps(state, separators=(",", ":"), sort_keys=True)
        if data == self._data:
            return
        self._data = data
        self.version += 1
        self.message = f"id: {self.version}\nevent: update\ndata: {data}\n\n".encode()
        self.over = state.get("status") in OVER
        self._changed.set()
        self._changed = asyncio.Event()

    async def changed(self, version: int, timeout: float) -> None:
        """Wait until a version newer than `version` is out, or `timeout`."""
        if self.version > version:
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)


class JsonFeeds:
    """Every live JSON feed of this web process."""

    def __init__(self, interval: timedelta = timedelta(seconds=2)) -> None:
        self.interval = interval
        self.feeds: dict[str, JsonFeed] = {}

    def poke(self) -> None:
        """Something changed (a match ended): every feed checks its source now."""
        for feed in self.feeds.values():
            feed.poked.set()

    def stream(self, key: str, loader: Loader) -> AsyncIterator[bytes]:
        """The SSE stream of the document `key`, read by `loader` (shared by its spectators)."""
        feed = self.feeds.get(key)
        if feed is None:
            feed = self.feeds[key] = JsonFeed(key, loader)
            feed.task = asyncio.create_task(self._follow(feed), name=f"live-{key}")
        feed.subscribers += 1
        return self._stream(feed)

    async def _stream(self, feed: JsonFeed) -> AsyncIterator[bytes]:
        seen = 0
        SUBSCRIBERS.labels("document").inc()
        try:
            yield b"retry: 2000\n\n"
            while True:
                await feed.changed(seen, 15.0)
                if feed.version > seen:
                    seen = feed.version
                    yield feed.message
                    if feed.over:
                        return
                else:
                    yield b": keepalive\n\n"
        finally:
            SUBSCRIBERS.labels("document").dec()
            feed.subscribers -= 1
            if feed.subscribers == 0 and self.feeds.get(feed.key) is feed:
                del self.feeds[feed.key]
                if feed.task is not None:
                    feed.task.cancel()

    async def _follow(self, feed: JsonFeed) -> None:
        while not feed.over:
            try:
                feed.reads += 1
                feed.publish(await feed.loader())
            except StorageError as exc:  # tried again at the next check
                log.warning("live: %s could not be read: %s", feed.key, exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(feed.poked.wait(), self.interval.total_seconds())
            feed.poked.clear()

    async def close(self) -> None:
        """Stop every feed."""
        tasks = [f.task for f in self.feeds.values() if f.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.feeds.clear()
