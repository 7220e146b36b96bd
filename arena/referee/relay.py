"""Messages between the referees of one arena, over Redis pub/sub: one channel per referee.

A referee that hosts a match and a referee that holds the stream of one of its bots talk through
these envelopes: requests go to the bot (`TO_BOT`), answers come back (`FROM_BOT`), and the bot's
comings and goings are announced to the hosts of its matches. Pub/sub delivers at most once and
only to a live subscriber; nothing here relies on more, because a lost message is made good by
the match's own recovery (a request is sent again when its bot reconnects or its match is taken
over). One sender task keeps the envelopes of a referee in order: a MatchStart precedes the
first request of its match.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis

from arena.ops import metrics

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "relay:"
"""A referee named `name` listens on `arena:<namespace>:relay:<name>`."""
_HEAD = struct.Struct("!BqqqH")
MAX_NAME_BYTES = 200


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
    """The bot opened a newer stream on the sender: close the receiver's stream as replaced."""
    NOT_HERE = 6
    """A TO_BOT envelope reached a referee where the bot is not connected."""
    HOST = 7
    """Host match `match_id`: it was placed on the receiver."""
    NOT_HOSTED = 8
    """A FROM_BOT envelope (sent back whole) reached a referee that does not host its match
    (any more): the sender looks the host up again."""


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
        self._outgoing: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
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
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _drained(self) -> None:
        while not self._outgoing.empty():
            await asyncio.sleep(0.01)

    def send(self, to: str, envelope: Envelope) -> None:
        """Queue `envelope` for referee `to` (never blocks)."""
        self._outgoing.put_nowait((channel(self.namespace, to), envelope.encode()))
        metrics.ROUTED_MESSAGES.labels(self.name, "out").inc()

    async def _send(self) -> None:
        while True:
            first = await self._outgoing.get()
            batch = [first]
            while not self._outgoing.empty() and len(batch) < 256:
                batch.append(self._outgoing.get_nowait())
            try:
                if len(batch) == 1:
                    await self.redis.publish(*first)
                else:  # one round trip for everything queued meanwhile, in order
                    pipe = self.redis.pipeline(transaction=False)
                    for target, data in batch:
                        pipe.publish(target, data)
                    await pipe.execute()
            except Exception as exc:  # Redis is down: what was lost is recovered by resending
                log.warning("relay: %s messages to other referees lost: %s", len(batch), exc)
                await asyncio.sleep(0.2)

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
