"""What watches a bot's stream: its heartbeats, a referee gone silent, no Welcome, a move."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterator
from datetime import timedelta
from typing import Any

from arena.v1 import bot_pb2

__all__ = [
    "FAILOVER_HEARTBEAT",
    "SILENT_AFTER",
    "Following",
    "Moved",
    "NoWelcome",
    "StreamWatch",
    "heartbeat_every",
    "heartbeats",
    "until_none",
    "wait_for_event",
]


class Moved(Exception):
    """The stream was closed to reopen it on `address`, the referee hosting the bot's match."""

    def __init__(self, address: str) -> None:
        super().__init__(f"moving to {address}, which hosts this bot's matches")
        self.address = address


class NoWelcome(TimeoutError):
    """A referee accepted no stream, or said no Welcome, in time; another attempt follows."""


SILENT_AFTER = timedelta(seconds=3)
"""A referee that says nothing, not even the answer to a heartbeat, this long after one is
presumed frozen (paused, or its host cut off, while the connection stays open): the bot moves
to the next referee. gRPC keepalive pings did not notice a frozen referee here."""
FAILOVER_HEARTBEAT = timedelta(seconds=2)
"""With several referees to go to, a heartbeat at least this often, so that a frozen referee is
left within about 5 s, well inside the arena's reconnect grace."""


def heartbeat_every(welcome: bot_pb2.Welcome, referees: int) -> timedelta:
    """How often to send a heartbeat: as the Welcome asks (10 s if unset), at least every
    `FAILOVER_HEARTBEAT` with several referees to go to."""
    every = welcome.heartbeat_interval.ToTimedelta() or timedelta(seconds=10)
    return min(every, FAILOVER_HEARTBEAT) if referees > 1 else every


async def heartbeats(
    outbox: asyncio.Queue[bot_pb2.BotMessage | None],
    every: timedelta,
    heard: Callable[[], float],
    silent: Callable[[], None],
) -> None:
    """Put a Heartbeat on the outbox every `every`, until cancelled; call `silent` (and stop)
    when nothing was heard (`heard()`: monotonic time of the last message) within
    `SILENT_AFTER` of one."""
    while True:
        await asyncio.sleep(every.total_seconds())
        beat = bot_pb2.BotMessage(heartbeat=bot_pb2.Heartbeat())
        beat.heartbeat.sent_at.GetCurrentTime()
        sent = time.monotonic()
        outbox.put_nowait(beat)
        await asyncio.sleep(SILENT_AFTER.total_seconds())
        if heard() < sent:
            silent()
            return


class StreamWatch:
    """Why a bot's stream is being cancelled: no Welcome in time, or a referee gone silent."""

    def __init__(self) -> None:
        self.call: Any = None
        self.heard = time.monotonic()
        """When the referee last said anything (monotonic seconds)."""
        self.deciding = False
        """Whether the bot is deciding: its stream is not read meanwhile, so the referee's
        messages wait unread and the time is no sign of a silent referee."""
        self.no_welcome = False
        self.frozen = False
        self.move_to = ""
        """The address of the referee the bot is moving to, once it closes the stream for it."""

    def last_heard(self) -> float:
        """When the referee was last heard from, or now while the bot is deciding (and not
        reading): a `decide` longer than `SILENT_AFTER` used to drop a healthy stream."""
        return time.monotonic() if self.deciding else self.heard

    @contextlib.contextmanager
    def decision(self) -> Iterator[None]:
        """Around the bot's decide: once it is reading again, silence counts from then."""
        self.deciding = True
        try:
            yield
        finally:
            self.deciding = False
            self.heard = max(self.heard, time.monotonic())

    def give_up(self) -> None:
        self.no_welcome = True
        self.call.cancel()

    def silent(self) -> None:
        self.frozen = True
        self.call.cancel()

    def raise_why(self, welcome_wait: timedelta) -> None:
        """Raise what says why this watch cancelled the stream (nothing if it did not). It
        raises rather than returns the error: a caller holding it in a local would keep its own
        frame, and the stream's channel, alive in a reference cycle."""
        if self.no_welcome:
            raise NoWelcome(f"no Welcome within {welcome_wait.total_seconds():g}s") from None
        if self.move_to:
            raise Moved(self.move_to) from None
        if self.frozen:
            raise NoWelcome(
                f"no answer to a heartbeat within {SILENT_AFTER.total_seconds():g}s"
            ) from None

    def move(self, address: str) -> None:
        """Close the stream to reopen it on `address` (nothing if empty)."""
        if address:
            self.move_to = address
            self.call.cancel()


class Following:
    """Where a bot's matches are hosted (MatchHost), and whether its stream should move."""

    def __init__(self) -> None:
        self.referee = ""
        """The name of the referee the stream is open on (Welcome.referee)."""
        self.hosts: dict[int, str] = {}
        """Match id -> the referee hosting it, for the matches a MatchHost named."""

    def move_to(self, where: bot_pb2.MatchHost, playing: Collection[int]) -> str:
        """Note where a match is hosted; the address to move the stream to if it and every
        match of `playing` (unfinished) are hosted there, else "" (the bot is relayed)."""
        self.hosts[where.match_id] = where.referee
        if not where.address or where.referee == self.referee:
            return ""
        if all(self.hosts.get(m, self.referee) == where.referee for m in playing):
            return where.address
        return ""


async def until_none(
    outbox: asyncio.Queue[bot_pb2.BotMessage | None],
) -> AsyncIterator[bot_pb2.BotMessage]:
    """The messages put on `outbox`, until a None (a stream's requests)."""
    while (message := await outbox.get()) is not None:
        yield message


async def wait_for_event(event: asyncio.Event, longest: timedelta) -> None:
    """Wait until `event` is set, at most `longest`."""
    waiting = asyncio.ensure_future(event.wait())
    await asyncio.wait({waiting}, timeout=longest.total_seconds())
    waiting.cancel()
