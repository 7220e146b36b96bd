"""Rendered answers, compressed once and shared by a crowd: strong ETags, 304s, gzip.

Everything the web server shows is public and read-only, so one rendering of a URL serves every
client that asks for it. A *final* answer (a finished match's steps or record) never changes: it
is rendered and compressed once and kept until evicted (least recently used, bounded in bytes),
and clients may keep it for a day. Any other answer is shared for `fresh_for` (about a poll
interval): a crowd asking at once waits for one rendering instead of starting its own. Each
answer carries a strong ETag, so a client that has it gets a 304 without the body.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

GZIP_MINIMUM = 500
"""Bodies shorter than this are sent as they are (as Starlette's GZipMiddleware does)."""
THREAD_MINIMUM = 64 * 1024
"""Bodies at least this long are compressed on a worker thread, off the event loop."""
FINAL_LIFETIME = "public, max-age=86400"
"""A finished match's answers: a day in any cache (its ETag still changes with the renderer)."""
REVALIDATE = "no-cache"
"""Anything else: clients keep it but ask (If-None-Match) before using it again."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """An answer as bytes, before compression."""

    status: int
    body: bytes
    media_type: str
    final: bool = False
    """It will never change (a finished match): cached until evicted, long client lifetime."""
    headers: tuple[tuple[str, str], ...] = ()
    """Extra headers, e.g. Retry-After or Allow."""

    @property
    def is_cacheable(self) -> bool:
        """Whether other clients may get this answer too (not a 5xx: those are momentary)."""
        return self.status < 500


@dataclass(slots=True)
class _Entry:
    rendered: Rendered
    etag: str
    gzipped: bytes | None
    expires: float
    """`time.monotonic()` after which it is rendered again (inf for a final answer)."""
    size: int = field(init=False)

    def __post_init__(self) -> None:
        self.size = len(self.rendered.body) + len(self.gzipped or b"") + 200


class ResponseCache:
    """Rendered answers by URL, shared by concurrent and later requests."""

    def __init__(self, fresh_for: float, max_bytes: int = 128 * 1024 * 1024) -> None:
        self.fresh_for = fresh_for
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._bytes = 0
        self._pending: dict[str, asyncio.Future[_Entry]] = {}

    async def serve(self, request: Request, render: Callable[[], Awaitable[Rendered]]) -> Response:
        """The answer to `request`: cached, or rendered once for everyone waiting on it."""
        # The query exactly as sent: sorting it would merge `a=1&a=2` with `a=2&a=1`, whose
        # answers differ (the last value counts).
        key = request.url.path + "?" + request.url.query
        entry = self._entries.get(key)
        if entry is None or entry.expires < time.monotonic():
            entry = await self._render(key, render)
        else:
            self._entries.move_to_end(key)
        return respond(request, entry)

    async def _render(self, key: str, render: Callable[[], Awaitable[Rendered]]) -> _Entry:
        waiting = self._pending.get(key)
        if waiting is not None:
            return await asyncio.shield(waiting)
        future: asyncio.Future[_Entry] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            entry = await self._build(await render())
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(exc)
                future.exception()  # marked retrieved: nobody else may be waiting
            raise
        finally:
            del self._pending[key]
        future.set_result(entry)
        if entry.rendered.is_cacheable and (entry.rendered.final or self.fresh_for > 0):
            self._keep(key, entry)
        return entry

    async def _build(self, rendered: Rendered) -> _Entry:
        body = rendered.body
        gzipped = None
        if len(body) >= GZIP_MINIMUM:
            level = 9 if rendered.final else 6
            if len(body) >= THREAD_MINIMUM:
                gzipped = await asyncio.to_thread(gzip.compress, body, level, mtime=0)
            else:
                gzipped = gzip.compress(body, level, mtime=0)
        etag = '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'
        lifetime = float("inf") if rendered.final else time.monotonic() + self.fresh_for
        return _Entry(rendered, etag, gzipped, lifetime)

    def _keep(self, key: str, entry: _Entry) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old.size
        if entry.size > self.max_bytes // 4:
            return
        self._entries[key] = entry
        self._bytes += entry.size
        while self._bytes > self.max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= evicted.size

    def __len__(self) -> int:
        return len(self._entries)


def _accepts_gzip(request: Request) -> bool:
    for part in request.headers.get("accept-encoding", "").lower().split(","):
        name, _, params = part.strip().partition(";")
        if name.strip() in ("gzip", "*"):
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _matches(request: Request, etag: str) -> bool:
    wanted = request.headers.get("if-none-match")
    if wanted is None:
        return False
    tags = [t.strip().removeprefix("W/") for t in wanted.split(",")]
    return "*" in tags or etag in tags


def respond(request: Request, entry: _Entry) -> Response:
    """The entry as a response: 304 when the client has it, gzip when it accepts gzip."""
    rendered = entry.rendered
    headers = {
        "ETag": entry.etag,
        "Cache-Control": FINAL_LIFETIME if rendered.final else REVALIDATE,
        "Vary": "Accept-Encoding",
    }
    headers.update(rendered.headers)
    if not rendered.is_cacheable:
        headers["Cache-Control"] = "no-store"
        del headers["ETag"]
    elif rendered.status == 200 and _matches(request, entry.etag):
        return Response(status_code=304, headers=headers)
    body = rendered.body
    if entry.gzipped is not None and _accepts_gzip(request):
        body = entry.gzipped
        headers["Content-Encoding"] = "gzip"
    return Response(body, rendered.status, headers, media_type=rendered.media_type)


@dataclass(frozen=True, slots=True)
class Final:
    """An API answer that will never change (a match that has ended): cached for good."""

    body: dict[str, Any]


def dumps(value: Any) -> bytes:
    """A JSON body, written by orjson where it can."""
    try:
        return orjson.dumps(value)
    except TypeError:  # an int beyond 64 bits, say a seed: json writes any int
        return json.dumps(value, separators=(",", ":")).encode()
