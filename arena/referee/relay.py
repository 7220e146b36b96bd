"""Messages between the referees of one arena, over Redis pub/sub: one channel per referee.

A referee that hosts a match and a referee that holds the stream of one of its bots talk through
these envelopes: requests go to the bot (`TO_BOT`), answers come back (`FROM_BOT`), and the bot's
comings and goings are announced to the hosts of its matches. One sender task keeps the envelopes
of a referee in order: a MatchStart precedes the first request of its match.

Pub/sub delivers only to a live subscriber, so an envelope whose PUBLISH failed (Redis down or
restarting) or reached nobody (the receiver has not subscribed again yet) is held and sent again
every `RETRY`, behind it every later envelope for the same referee, until it is delivered or
older than `HOLD` (then it is dropped: the match's own recovery makes it good, a request being
sent again when its bot reconnects or its match is taken over). At most `MAX_HELD` envelopes are
held, the oldest dropped first. A PUBLISH that failed mid-way may have been delivered: the
resent copy is then a duplicate, which the receiver tolerates (a second answer to a decision is
refused as stale, a second request is answered again and that answer refused as stale).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import struct
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

import redis.asyncio as aioredis

from arena.ops import metrics
from arena.referee.tasks import cancel_until_done

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "relay:"
"""A referee named `name` listens on `arena:<namespace>:relay:<name>`."""
_HEAD = struct.Struct("!BqqqH")
MAX_NAME_BYTES = 200
HOLD = timedelta(seconds=30)
"""How long an envelope that was not delivered is kept to be sent again."""
MAX_HELD = 10_000
"""Most envelopes held at once; the oldest are dropped first."""
RETRY = timedelta(milliseconds=200)
"""How often held envelopes are sent again."""


class Kind(enum.IntEnum):
    """What an envelope carries."""

    TO_BOT = 1
    """An ArenaMessage for a bot connected to the receiver; `number` is the match's lease epoch."""
    FROM_BOT = 2
    """A BotMessage (action or resign) from a bot connected to the sender, for a match the
    receiver hosts."""
    CONNECTED = 3
    """The bot opened a stream on the sender; `number` is the payload form it asked for."""
    DISCONNECTED = 4
    """The bot's stream on the sender ended."""
    REPLACED = 5
    """The bot opened a newer stream on the sender: close the receiver's stream as replaced if
    it is older; `number` is when the newer one opened (ms since the epoch; 0: unknown). An
    envelope held while its receiver was dead reaches it after a restart, when the bot may
    have come back there: that newer stream must stay open."""
    NOT_HERE = 6
    """A TO_BOT envelope reached a referee where the bot is not connected (sent back whole:
    the host keeps what the bot must still hear)."""
    HOST = 7
    """Host match `match_id`: it was placed on the receiver."""
    NOT_HOSTED = 8
    """A FROM_BOT envelope (sent back whole) reached a referee that does not host its match
    (any more): the sender looks the host up again."""
    REVOKED = 9
    """The bot's owner rotated its token or retired it: close the receiver's stream of the bot
    with UNAUTHENTICATED; `payload` is the message (UTF-8)."""


@dataclass(frozen=True, slots=True)
class Envelope:
    """One message between referees."""

    kind: Kind
    sender: str
    bot_id: int = 0
    match_id: int = 0
    number: int = 0
    payload: bytes = b""

    def encode(self) -> bytes:
        name = self.sender.encode()
        head = _HEAD.pack(self.kind, self.bot_id, self.match_id, self.number, len(name))
        return head + name + self.payload

    @classmethod
    def decode(cls, data: bytes) -> Envelope:
        """The envelope in `data`; raises ValueError if it is not one."""
        try:
            kind, bot_id, match_id, number, name_len = _HEAD.unpack_from(data)
        except struct.error as exc:
            raise ValueError(f"a relay message of {len(data)} bytes is too short") from exc
        start = _HEAD.size
        name = data[start : start + name_len].decode(errors="replace")
        return cls(Kind(kind), name, bot_id, match_id, number, bytes(data[start + name_len :]))


def channel(namespace: str, referee: str) -> str:
    """The channel a referee of the arena `namespace` listens on."""
    return f"arena:{namespace}:{CHANNEL_PREFIX}{referee}"


Handler = Callable[[Envelope], Awaitable[None] | None]


class Relay:
    """Sends envelopes to other referees in order and hands the ones for this referee to
    `handler`."""

    def __init__(self, redis: aioredis.Redis, namespace: str, name: str, handler: Handler) -> None:
        if len(name.encode()) > MAX_NAME_BYTES:
            raise ValueError(f"a referee name may have at most {MAX_NAME_BYTES} bytes")
        self.redis = redis
        self.namespace = namespace
        self.name = name
        self.handler = handler
        self._outgoing: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue()
        """(channel, data, whether to hold it when it reaches nobody), in order."""
        self._held: deque[tuple[str, bytes, float]] = deque()
        """(channel, envelope, when it was first sent) not yet delivered, oldest first."""
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = asyncio.Event()

    async def start(self) -> None:
        """Subscribe to this referee's channel and start sending; returns once subscribed."""
        self._tasks = [
            asyncio.create_task(self._listen(), name="relay-listen"),
            asyncio.create_task(self._send(), name="relay-send"),
        ]
        await asyncio.wait_for(self._subscribed.wait(), 10)

    async def stop(self) -> None:
        """Send what is queued (briefly), then stop both tasks."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drained(), 1.0)
        await cancel_until_done(self._tasks)

    async def _drained(self) -> None:
        while not self._outgoing.empty() or self._held:
            await asyncio.sleep(0.01)

    def send(self, to: str, envelope: Envelope) -> None:
        """Queue `envelope` for referee `to` (never blocks)."""
        self._outgoing.put_nowait((channel(self.namespace, to), envelope.encode(), True))
        metrics.ROUTED_MESSAGES.labels(self.name, "out").inc()

    def publish(self, to_channel: str, data: bytes) -> None:
        """Queue `data` for any channel (e.g. a match's step news), in order with the rest. It
        is not held when it reaches nobody: news that no page listens to is dropped (a page
        that missed some polls for it), never resent with every later envelope."""
        self._outgoing.put_nowait((to_channel, data, False))

    async def _send(self) -> None:
        while True:
            if self._held:
                first = None
                # Not wait_for: on Python 3.11 it can lose a cancel that meets a message
                # arriving (gh-86296); `stop` cancels again anyway (cancel_until_done).
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(RETRY.total_seconds()):
                        first = await self._outgoing.get()
            else:
                first = await self._outgoing.get()
            batch = [] if first is None else [first]
            while not self._outgoing.empty() and len(batch) < 256:
                batch.append(self._outgoing.get_nowait())
            await self._publish(batch)

    async def _publish(self, batch: list[tuple[str, bytes, bool]]) -> None:
        """Publish what is held (oldest first) and then `batch`, in one round trip; hold what
        reached nobody (envelopes for referees, not news)."""
        now = time.monotonic()
        self._drop_old(now)
        resend = len(self._held)
        todo = [*self._held, *((target, data, now) for target, data, _ in batch)]
        holdable = [True] * resend + [keep for _, _, keep in batch]
        self._held.clear()
        if not todo:
            return
        try:
            if len(todo) == 1:
                counts = [await self.redis.publish(todo[0][0], todo[0][1])]
            else:  # one round trip for everything queued meanwhile, in order
                pipe = self.redis.pipeline(transaction=False)
                for target, data, _ in todo:
                    pipe.publish(target, data)
                counts = await pipe.execute()
        except Exception as exc:  # Redis is down: send all of it again later
            if not resend:
                log.warning("relay: Redis does not answer (%s); holding messages to resend", exc)
            self._hold([item for item, keep in zip(todo, holdable, strict=True) if keep])
            return
        delivered = zip(todo, counts, holdable, strict=True)
        undelivered = [item for item, count, keep in delivered if keep and not count]
        # Behind an envelope held for a referee, every later one for it is held too.
        late = {target for target, _, _ in undelivered}
        self._hold([item for item in todo if item[0] in late])
        if resend:
            sent = resend - sum(1 for _, _, since in self._held if since < now)
            metrics.ROUTED_MESSAGES.labels(self.name, "resent").inc(sent)
            if not self._held:
                log.info("relay: %s held messages were sent again", sent)

    def _hold(self, items: list[tuple[str, bytes, float]]) -> None:
        self._held.extend(items)
        excess = len(self._held) - MAX_HELD
        if excess > 0:
            for _ in range(excess):
                self._held.popleft()
            self._count_dropped(excess, f"more than {MAX_HELD} held")

    def _drop_old(self, now: float) -> None:
        oldest = now - HOLD.total_seconds()
        dropped = 0
        while self._held and self._held[0][2] < oldest:
            self._held.popleft()
            dropped += 1
        if dropped:
            self._count_dropped(dropped, f"undelivered for {HOLD.total_seconds():g} s")

    def _count_dropped(self, count: int, why: str) -> None:
        log.warning("relay: %s messages to other referees lost (%s)", count, why)
        metrics.ROUTED_MESSAGES.labels(self.name, "lost").inc(count)

    async def _listen(self) -> None:
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(channel(self.namespace, self.name))
                    self._subscribed.set()
                    async for message in pubsub.listen():
                        if message.get("type") != "message":
                            continue
                        await self._deliver(message["data"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis dropped us: subscribe again
                log.warning("relay: listening on %s failed (%s); retrying", self.name, exc)
                await asyncio.sleep(0.5)

    async def _deliver(self, data: bytes) -> None:
        try:
            envelope = Envelope.decode(data)
        except ValueError as exc:
            log.warning("relay: ignored a message that is not an envelope: %s", exc)
            return
        metrics.ROUTED_MESSAGES.labels(self.name, "in").inc()
        try:
            result = self.handler(envelope)
            if result is not None:
                await result
        except Exception:  # one bad envelope must not stop the referee's routing
            log.exception("relay: handling %s from %s failed", envelope.kind.name, envelope.sender)
