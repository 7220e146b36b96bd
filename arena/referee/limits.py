"""What the referee bounds: message sizes, login and registration rates, echoed client input.

The numbers live in `Limits` (one per referee, in `RefereeConfig`); `docs/operations.md` ("Limits")
says what a client sees when it hits each one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta

ECHO_CHARS = 40
"""How much of a client's own input an error message repeats back."""


@dataclass(frozen=True, slots=True)
class Rate:
    """A token bucket's shape: `burst` calls at once, then one per `every`."""

    burst: int
    """Calls allowed back to back."""
    every: timedelta
    """Time to earn one call back."""


@dataclass(frozen=True, slots=True)
class Limits:
    """The bounds a referee enforces on bots and API clients."""

    max_message_bytes: int = 64 * 1024
    """Largest message any client may send once logged in (the gRPC server's receive limit)."""
    max_hello_bytes: int = 1024
    """Largest first message of a bot stream, before its token is checked."""
    max_token_chars: int = 128
    """Longest token a Hello may carry (real tokens have 49 characters)."""
    max_streams_per_connection: int = 256
    """Calls one client connection may have open at once (more wait in the client)."""
    hello_timeout: timedelta = timedelta(seconds=5)
    """A bot stream that has sent no Hello by then is closed."""
    outbox_messages: int = 1000
    """Messages queued for one bot stream; a bot that falls further behind is disconnected."""
    watch_queue_steps: int = 1000
    """Steps a WatchMatch call may hold unsent; a spectator further behind is dropped."""
    messages: Rate = Rate(burst=2000, every=timedelta(milliseconds=1))
    """Messages one logged-in bot stream may send: 2,000 at once, then 1,000 a second."""
    failed_logins: Rate = Rate(burst=10, every=timedelta(seconds=2))
    """Failed Hellos per peer address, and per token prefix. Past it a Hello is still checked
    (one at a time per address), so a right token always logs in; a wrong one is refused
    `RESOURCE_EXHAUSTED` after `failed_login_delay`."""
    failed_login_delay: timedelta = timedelta(seconds=1)
    """How long a wrong token waits for its answer once its address or prefix is over the
    failed-login rate."""
    registrations: Rate = Rate(burst=20, every=timedelta(seconds=3))
    """RegisterBot calls per peer address."""
    open_registration: bool = True
    """Whether anyone may call RegisterBot; when off, it needs the admin token."""


class TokenBucket:
    """Calls earned over time, up to a burst; `take` spends one if there is one."""

    def __init__(self, rate: Rate, now: float) -> None:
        self.rate = rate
        self.tokens = float(rate.burst)
        self.updated = now

    def _refill(self, now: float) -> None:
        every = self.rate.every.total_seconds()
        earned = (now - self.updated) / every if every > 0 else float(self.rate.burst)
        self.tokens = min(float(self.rate.burst), self.tokens + earned)
        self.updated = now

    def has(self, now: float) -> bool:
        """Whether a call would be allowed now (without spending it)."""
        self._refill(now)
        return self.tokens >= 1.0

    def take(self, now: float) -> bool:
        """Spend one call; False if the bucket is empty."""
        self._refill(now)
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def is_full(self, now: float) -> bool:
        """Whether the bucket has earned everything back (it can then be forgotten)."""
        self._refill(now)
        return self.tokens >= self.rate.burst


class RateLimiter:
    """One token bucket per key (a peer address, a token prefix), at most `max_keys` of them.

    When the table is full, full buckets are forgotten first, then the oldest; forgetting a key
    only ever gives it a fresh burst, so the table bounds memory without a cleanup task.
    """

    def __init__(
        self, rate: Rate, max_keys: int = 10_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def _bucket(self, key: str, now: float) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._evict(now)
            bucket = self._buckets[key] = TokenBucket(self.rate, now)
        self._buckets.move_to_end(key)
        return bucket

    def _evict(self, now: float) -> None:
        for key in [k for k, b in self._buckets.items() if b.is_full(now)]:
            del self._buckets[key]
        while len(self._buckets) >= self.max_keys:
            self._buckets.popitem(last=False)

    def allows(self, key: str) -> bool:
        """Whether `key` has a call left, without spending it."""
        return self._bucket(key, self._clock()).has(self._clock())

    def take(self, key: str) -> bool:
        """Spend one of `key`'s calls; False when it has none left."""
        return self._bucket(key, self._clock()).take(self._clock())


class Turns:
    """One holder at a time per key (a peer address); keys nobody holds or waits for are
    forgotten, so the table is as large as the number of addresses being served right now."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def of(self, key: str) -> AsyncIterator[None]:
        """Hold `key`'s turn for the body of the `async with`."""
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)


def peer_address(peer: str | None) -> str:
    """The host part of a gRPC peer string (`ipv4:1.2.3.4:5678`, `ipv6:[::1]:5678`)."""
    if not peer:
        return "unknown"
    kind, _, rest = peer.partition(":")
    if kind == "ipv6" and rest.startswith("["):
        return rest[1:].partition("]")[0]
    if kind in ("ipv4", "ipv6"):
        return rest.rpartition(":")[0] or rest
    return peer  # unix sockets and the like: the whole string names the peer


def token_prefix(token: str) -> str:
    """The part of a token that keys its failed-login bucket (never logged or echoed)."""
    return token[:12]


def clip(text: str, limit: int = ECHO_CHARS) -> str:
    """`text`, or its first `limit` characters and how many more there were."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"
