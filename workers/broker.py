"""The broker transport: kombu's Redis transport, with channels that outlive their transport.

Found by the chaos soak (issue 26): during Redis outages both workers died for good with
`Unrecoverable error: AttributeError("'NoneType' object has no attribute 'hostname'")`. On a lost
broker connection Celery (5.7) first calls `Connection.collect()`. That closes the default channel,
but kombu's Redis `Channel.close` first reads the reply to its pending BRPOP (a worker with
a free slot always has one), which raises a connection error while Redis is down, before the channel
is marked closed; `maybe_close_channel` swallows it and `collect()` detaches the transport
(`transport.client = None`), keeping the channel. Celery then calls `Connection.close()`, which
closes that channel again; with an unacknowledged message (any running task, `acks_late`) this close
restores it through a new pool whose parameters come from `transport.client`: `AttributeError`,
which neither kombu nor Celery takes for a connection error, so the worker stops consuming and
exits once its running tasks end. Acknowledging or rejecting a message of that channel later (a
task that ends after the reconnection; the requeue at shutdown) takes the same path. Nothing in
kombu or Celery 5.7 guards it (tests/tournament/test_broker_outage.py).

Each channel keeps the connection it was opened for, and reads its Redis address from it once the
transport is detached: the late close then restores unacknowledged messages (or, with Redis still
down, fails with a connection error that is ignored, and Redis's visibility timeout hands them out
again), and a late acknowledgement reaches Redis like any other.
"""

from __future__ import annotations

from typing import Any

import kombu.transport
from kombu.transport import redis

ALIASES = ("redis", "rediss")
"""The URL schemes served by this transport (`redis+socket://` resolves to `redis`)."""


class Channel(redis.Channel):
    """A Redis channel that can still reach Redis after its transport was detached."""

    def __init__(self, connection: Any, *args: Any, **kwargs: Any) -> None:
        self._opened_for = connection.client
        super().__init__(connection, *args, **kwargs)

    def _connparams(self, asynchronous: bool = False) -> Any:
        parent = super()._connparams  # type: ignore[misc]  # (kombu's stubs omit it)
        transport = self.connection
        if transport.client is not None:
            return parent(asynchronous=asynchronous)
        # Detached by `Connection.collect()`/`close()`: lend it the connection back for the
        # parameters only (the worker's consumer runs in one thread).
        transport.client = self._opened_for
        try:
            return parent(asynchronous=asynchronous)
        finally:
            transport.client = None


class Transport(redis.Transport):
    """kombu's Redis transport with `Channel` above."""

    Channel = Channel


def install() -> None:
    """Serve `redis://`, `rediss://` and `redis+socket://` URLs with `Transport` in this process.

    Registered by scheme rather than through Celery's `broker_transport` so that kombu still sees
    the scheme: `rediss://` keeps its TLS defaults and `redis+socket://` its socket.
    """
    for alias in ALIASES:
        kombu.transport.TRANSPORT_ALIASES[alias] = f"{__name__}:Transport"
        # kombu caches resolved aliases: forget one resolved before this ran.
        getattr(kombu.transport, "_transport_cache", {}).pop(alias, None)
