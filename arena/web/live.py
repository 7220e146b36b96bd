"""Live matches pushed to browsers: one feed per watched match per web process, fanned out to
every spectator as Server-Sent Events.

A feed wakes on the referees' step news over Redis (`arena.referee.step_news`), reads the new
decisions from Postgres once (`MatchSteps`), waits out the spectator delay, encodes each step once
(the same bytes as its page of `/steps`) and appends it to a list every subscriber reads from
with its own cursor: a thousand spectators cost one read and one encoding per step. A subscriber
waits on the feed alone, with no timer or task of its own: the feed wakes them all for a step,
and for a keepalive comment when quiet. Without Redis, or when news is lost (a referee dies, a
takeover), the feed also looks on its own every `poll`. A subscriber resumes from the last step
it saw (SSE `Last-Event-ID`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from arena.referee import step_news
from arena.storage.db import Database
from arena.storage.errors import StorageError
from arena.storage.rows import MatchRow, MatchStatus
from arena.web import data
from arena.web.door import BadRequest, NotFoundError, check_door
from arena.web.live_json import JsonFeeds, Loader
from arena.web.metrics import SUBSCRIBERS
from arena.web.steps import MatchSteps

log = logging.getLogger(__name__)

ENDED = (MatchStatus.FINISHED, MatchStatus.ABORTED)
NEWS_POLL = timedelta(seconds=5)
"""How often a feed looks without news while the referees' news flows (lost news, takeover)."""
KEEPALIVE = timedelta(seconds=15)
"""A comment line this often keeps proxies from closing a quiet stream."""

Summary = Callable[[MatchRow], dict[str, Any]]


class HubFull(RuntimeError):
    """This web process already serves as many live spectators as it may."""


def sse(event: str, data: Any, event_id: int | None = None) -> bytes:
    """One Server-Sent Event, encoded."""
    return sse_encoded(event, json.dumps(data, separators=(",", ":")).encode(), event_id)


def sse_encoded(event: str, data: bytes, event_id: int | None = None) -> bytes:
    """One Server-Sent Event whose data is JSON already encoded (one line: JSON escapes its
    newlines)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: ".encode() + data + b"\n\n"


class Feed:
    """One live match in this process: its steps encoded once, read by every subscriber."""

    def __init__(self, row: MatchRow) -> None:
        self.match_id = row.id
        self.row = row
        """The match as last read (its status says when it ends)."""
        self.messages: list[bytes] = []
        """Message i is step i (its SSE id is i); after the last step, the end message."""
        self.ended = False
        self.failed: str | None = None
        self.subscribers = 0
        self.reads = 0
        """Database reads made (for the tests and the bench)."""
        self.end_news = False
        """The referee said the match ended."""
        self._changed = asyncio.Event()
        self._news = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self._beat = asyncio.get_running_loop().call_later(KEEPALIVE.total_seconds(), self._pulse)

    def news(self, end: bool = False) -> None:
        """The referee logged a decision of this match (or ended it): look now."""
        self.end_news = self.end_news or end
        self._news.set()

    def append(self, message: bytes) -> None:
        """Publish one more message to every subscriber."""
        self.messages.append(message)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _pulse(self) -> None:
        """Wake every subscriber with nothing new (each then sends a keepalive comment), and
        again after `KEEPALIVE`: one timer per feed, none per subscriber."""
        self._wake()
        self._beat = asyncio.get_running_loop().call_later(KEEPALIVE.total_seconds(), self._pulse)

    def stop(self) -> None:
        """No more keepalives (the last subscriber left)."""
        self._beat.cancel()

    async def changed(self, known: int) -> None:
        """Wait until there are more than `known` messages, the feed ends or fails, or the
        keepalive pulse: a plain wait on an event the feed sets, so a thousand subscribers cost
        a thousand wake-ups and no timers or tasks."""
        if len(self.messages) > known or self.ended:
            return
        await self._changed.wait()

    async def next_news(self, timeout: float) -> bool:
        """Wait for news or `timeout` seconds, whichever is first; whether news came."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._news.wait(), max(timeout, 0.0))
        woke = self._news.is_set()
        self._news.clear()
        return woke


class LiveHub:
    """Every live feed of this web process, and the one Redis subscription that wakes them."""

    def __init__(
        self,
        db: Database,
        cache: MatchSteps,
        summary: Summary,
        final: Summary,
        poll: timedelta = timedelta(seconds=1),
        max_subscribers: int = 5000,
    ) -> None:
        self.db = db
        self.cache = cache
        self.summary = summary
        self.final = final
        self.poll = poll
        """How often a feed looks for steps without news (Redis down, lost news, takeover)."""
        self.max_subscribers = max_subscribers
        self.feeds: dict[int, Feed] = {}
        self.subscribers = 0
        self._listener: asyncio.Task[None] | None = None
        self._reading: dict[int, asyncio.Future[MatchRow | None]] = {}
        self.documents = JsonFeeds()
        """Tournament standings and the home page's live list, pushed the same way."""

    # -- the referees' news ----------------------------------------------------------------------
    async def listen(self, redis_url: str) -> None:
        """Follow the referees' step news on Redis (in the background, until `close`)."""
        # Imported here: only a web process given a Redis URL loads the Redis client.
        import redis.asyncio as aioredis

        from arena.storage.identity import arena_identity  # beside the import above

        namespace = await arena_identity(self.db.pool)
        redis = aioredis.Redis.from_url(redis_url)
        subscribed = asyncio.Event()
        self._listener = asyncio.create_task(
            self._listen(redis, step_news.pattern(namespace), subscribed), name="live-news"
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(subscribed.wait(), 5)

    async def _listen(self, redis: Any, pattern: str, subscribed: asyncio.Event) -> None:
        try:
            while True:
                try:
                    async with redis.pubsub() as pubsub:
                        await pubsub.psubscribe(pattern)
                        subscribed.set()
                        async for message in pubsub.listen():
                            if message.get("type") == "pmessage":
                                self.news(message["data"])
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # Redis dropped us: feeds poll meanwhile
                    log.warning("live: step news lost (%s); subscribing again", exc)
                    await asyncio.sleep(1)
        finally:
            await redis.aclose()

    def news(self, data: bytes | str) -> None:
        """Wake the feed a news message is about (ignored if nobody here watches that match)."""
        try:
            match_id, _, end = step_news.decode(data)
        except ValueError:
            return
        feed = self.feeds.get(match_id)
        if feed is not None:
            feed.news(end)
        if end:  # standings and live lists may have changed
            self.documents.poke()

    async def close(self) -> None:
        """Stop listening and end every feed."""
        tasks = [f.task for f in self.feeds.values() if f.task is not None]
        if self._listener is not None:
            tasks.append(self._listener)
        for feed in self.feeds.values():
            feed.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.feeds.clear()
        await self.documents.close()

    async def match_row(self, match_id: int) -> MatchRow | None:
        """The match as this process last read it: spectators arriving together share a read,
        and spectators of a followed match cost none."""
        feed = self.feeds.get(match_id)
        if feed is not None:
            return feed.row
        reading = self._reading.get(match_id)
        if reading is None:
            reading = self._reading[match_id] = asyncio.ensure_future(self.db.match(match_id))
            reading.add_done_callback(lambda _: self._reading.pop(match_id, None))
        return await asyncio.shield(reading)

    # -- spectators --------------------------------------------------------------------------------
    async def stream(self, row: MatchRow, start: int) -> AsyncIterator[bytes]:
        """The SSE stream of match `row` from step `start` on, ending after its end message.

        Raises `HubFull` before the first message when this process has no room."""
        if self.subscribers >= self.max_subscribers:
            raise HubFull(f"this server follows {self.subscribers} live spectators already")
        feed = self.feeds.get(row.id)
        if feed is None:
            feed = self.feeds[row.id] = Feed(row)
            feed.task = asyncio.create_task(self._follow(feed, row), name=f"live-{row.id}")
        feed.subscribers += 1
        self.subscribers += 1
        return self._stream(feed, start)

    async def _stream(self, feed: Feed, start: int) -> AsyncIterator[bytes]:
        at = max(start, 0)
        SUBSCRIBERS.labels("match").inc()
        try:
            yield b"retry: 2000\n\n"
            messages = feed.messages
            while True:
                if at < len(messages):  # all it has not seen, in one write
                    upto = len(messages)
                    yield messages[at] if upto == at + 1 else b"".join(messages[at:upto])
                    at = upto
                    continue
                if feed.ended:
                    if at > len(feed.messages) and feed.messages:
                        yield feed.messages[-1]  # resumed past the end: the end again
                    return
                if feed.failed is not None:
                    yield sse("problem", {"error": feed.failed})
                    return
                known = len(feed.messages)
                await feed.changed(known)
                if len(messages) == known and not feed.ended and feed.failed is None:
                    yield b": keepalive\n\n"
        finally:
            SUBSCRIBERS.labels("match").dec()
            feed.subscribers -= 1
            self.subscribers -= 1
            if feed.subscribers == 0 and self.feeds.get(feed.match_id) is feed:
                del self.feeds[feed.match_id]
                feed.stop()
                if feed.task is not None:
                    feed.task.cancel()

    # -- one feed ----------------------------------------------------------------------------------
    async def _follow(self, feed: Feed, row: MatchRow) -> None:
        read = True
        try:
            while True:
                steps = await self.cache.steps(row, read=read)
                feed.reads += read
                new = steps[len(feed.messages) :]
                for step, body in zip(new, await self.cache.encoded(row, new), strict=True):
                    feed.append(sse_encoded("step", body, step.index))
                if row.status in ENDED:
                    end = {"match": self.summary(row), "final": self.final(row)}
                    feed.ended = True
                    feed.append(sse("end", end, len(feed.messages)))
                    return
                reveal = self.cache.next_reveal(row.id)
                wait = self.poll.total_seconds()
                if reveal is not None:
                    wait = min(wait, (reveal - datetime.now(UTC)).total_seconds())
                woke = await feed.next_news(wait)
                looked = not woke and reveal is None  # a poll: news may have been lost
                if feed.end_news or looked:
                    fresh = await self.db.match(row.id)
                    feed.reads += 1
                    row = feed.row = fresh if fresh is not None else row
                # A step due to be shown needs no read; news or a poll does.
                read = woke or looked
        except asyncio.CancelledError:
            raise
        except StorageError as exc:
            feed.failed = "the database is unavailable; reload the page to try again"
            log.warning("live: feed of match %s stopped: %s", row.id, exc)
            feed.append(b"")  # wakes the subscribers, who then see `failed`


def hub(db: Database, cache: MatchSteps, config: Any) -> LiveHub:
    """The live hub of a web app configured by `config` (`arena.web.app.WebConfig`)."""
    return LiveHub(
        db, cache, data.match_summary, data.final_ranking, config.live_poll, config.max_live
    )


async def listen(live: LiveHub, redis_url: str) -> None:
    """Follow the referees' news; a web process whose Redis is down still serves, polling."""
    try:
        await live.listen(redis_url)
    except Exception as exc:
        log.warning("live: no step news from Redis (%s); live pages poll the database", exc)
        return
    live.poll = max(live.poll, NEWS_POLL)


async def respond(live: LiveHub, request: Request, match_id: int) -> Response:
    """`GET /api/matches/{id}/live`: the match's steps as Server-Sent Events, from `?from=` or
    after the `Last-Event-ID` the browser sends when it reconnects."""
    row = await live.match_row(match_id)
    if row is None:
        return JSONResponse({"error": f"no match {match_id}"}, status_code=404)
    start = _start(request)
    if start is None:
        return JSONResponse(
            {"error": "'from' and Last-Event-ID must be step numbers (ASCII digits)"},
            status_code=400,
        )
    try:
        stream = await live.stream(row, start)
    except HubFull as exc:
        return JSONResponse({"error": str(exc)}, status_code=503, headers={"Retry-After": "5"})
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream, media_type="text/event-stream", headers=headers)


def _start(request: Request) -> int | None:
    """The first step to send: one after Last-Event-ID, else `from`, else 0; None if bad."""
    last = request.headers.get("last-event-id")
    if last is not None:
        return int(last) + 1 if _is_number(last) else None
    raw = request.query_params.get("from", "0") or "0"
    return int(raw) if _is_number(raw) else None


def _is_number(raw: str) -> bool:
    return raw.isascii() and raw.isdigit() and len(raw) <= 9


async def respond_document(live: LiveHub, key: str, loader: Loader) -> Response:
    """A live JSON document (`GET /api/home/live`, `/api/tournaments/{id}/live`): an `update`
    event with the same JSON as its API twin now and whenever it changes."""
    if key not in live.documents.feeds:
        await loader()  # a document that does not exist raises its 404 here
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    stream = live.documents.stream(key, loader)
    return StreamingResponse(stream, media_type="text/event-stream", headers=headers)


def endpoint(handler: Callable[[Request], Awaitable[Response]]) -> Callable[..., Any]:
    """A live stream's route: checked at the door like any answer, never cached."""

    async def serve(request: Request) -> Response:
        try:
            check_door(request)
            return await handler(request)
        except NotFoundError as exc:
            return JSONResponse({"error": str(exc.args[0])}, status_code=404)
        except BadRequest as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except StorageError as exc:
            log.warning("live: a stream could not start: %s", exc)
            busy = {"error": "the server is busy; try again shortly"}
            return JSONResponse(busy, status_code=503, headers={"Retry-After": "5"})

    return serve
