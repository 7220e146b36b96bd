"""Where a bot or a client command may reach a referee: one address, several, or a gRPC target.

Several referees serve one arena; a bot may connect to any of them. What a caller can pass:

    "localhost:50051"                    one referee
    "ref-a:50051,ref-b:50051"            several: a list the SDK rotates through on reconnect
    ["ref-a:50051", "ref-b:50051"]       the same, as a sequence
    "dns:///referees.internal:50051"     a gRPC target: one channel, gRPC's round_robin policy
                                         over every address the name resolves to

Why a list is rotated rather than handed to gRPC: grpcio has no target that names several host
names (`ipv4:`/`ipv6:` targets take literal IPs only), and rotating ourselves lets the SDK say
which referee it is talking to (a grpc.aio call has no peer()).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from datetime import timedelta

SCHEMES = ("dns:", "ipv4:", "ipv6:", "unix:", "unix-abstract:", "vsock:", "xds:")
"""gRPC target schemes: a target starting with one is passed to gRPC whole, never split."""
BALANCED_SCHEMES = ("dns:", "ipv4:", "ipv6:")
"""Targets that may resolve to several referees: their channel balances with round_robin."""
ROUND_ROBIN = (("grpc.service_config", json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})),)
"""Channel options that make a channel spread new streams over every ready address (gRPC's
default, pick_first, would stay on the first one that answers)."""


FIRST_BACKOFF = timedelta(milliseconds=100)
"""The pause before the next attempt after a stream fails; it doubles after each full round of
the addresses that failed, so a dropped referee is left for the next one within ~100 ms."""
MAX_BACKOFF = timedelta(seconds=5)
"""The longest pause between attempts to open a stream."""


class AddressError(ValueError):
    """An address list that cannot name a referee (an empty element, a bad port)."""


def is_target(address: str) -> bool:
    """Whether `address` is a gRPC target with a scheme (e.g. "dns:///name:port")."""
    return address.lower().startswith(SCHEMES)


def parse_addresses(address: str | Sequence[str]) -> list[str]:
    """The referee addresses in `address`, in order: a comma-separated list, a sequence of
    addresses, or a single gRPC target (kept whole: `ipv4:a:1,b:2` is one target).

    Raises AddressError for an empty list, an empty element or a host:port whose port is not
    1-65535."""
    if isinstance(address, str):
        text = address.strip()
        if is_target(text):
            return [text]
        items = text.split(",")
    else:
        items = list(address)
    if not items or items == [""]:
        raise AddressError("no referee address given")
    addresses = []
    for item in items:
        one = item.strip()
        if not one:
            raise AddressError(f"empty address in {_shown(address)}")
        if not is_target(one):
            _check_host_port(one)
        addresses.append(one)
    return addresses


KEEPALIVE: tuple[tuple[str, int], ...] = (
    ("grpc.keepalive_time_ms", 6_000),
    ("grpc.keepalive_timeout_ms", 3_000),
)
"""Pings that notice a referee that froze (paused, its host cut off: the stream neither ends nor
answers) within about 9 s, so the bot moves to another referee before the arena's reconnect
grace runs out. The referee accepts a ping every 5 s (`arena.referee.server`), so 6 s never
earns a "too many pings" GOAWAY."""


def channel_options(address: str) -> tuple[tuple[str, str | int], ...]:
    """The options of a channel to `address`: keepalive pings, and round_robin for targets that
    may resolve to several referees."""
    balanced = ROUND_ROBIN if address.lower().startswith(BALANCED_SCHEMES) else ()
    return (*KEEPALIVE, *balanced)


def _check_host_port(address: str) -> None:
    host, sep, port = address.rpartition(":")
    if not sep or not host or host in ("[", "[]"):
        raise AddressError(f"{address!r} is not HOST:PORT")
    if host.startswith("[") != host.endswith("]") or (":" in host and not host.startswith("[")):
        raise AddressError(f"{address!r} is not HOST:PORT (write an IPv6 host as [::1]:50051)")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise AddressError(f"{address!r} has a bad port {port!r} (a number from 1 to 65535)")


def _shown(address: str | Sequence[str]) -> str:
    return repr(address) if isinstance(address, str) else repr(",".join(address))


class Rotation:
    """The referees a bot tries in turn: after a failed or dropped stream, the next one.

    The pause before the next attempt is FIRST_BACKOFF while this round of addresses has not all
    failed, then doubles per failed round up to MAX_BACKOFF (with jitter, so bots that lost the
    same referee do not all knock on the next one at the same instant)."""

    def __init__(self, addresses: Sequence[str]) -> None:
        if not addresses:
            raise AddressError("no referee address given")
        self.addresses = list(addresses)
        self.index = 0
        self.failures = 0
        """Attempts failed since the last Welcome."""
        self.visiting: str | None = None
        """A referee outside the list that the bot moved to (it hosts the bot's match)."""

    @property
    def current(self) -> str:
        """The address to try now."""
        return self.visiting or self.addresses[self.index]

    def connected(self) -> None:
        """The current referee said Welcome: the next failure starts a new round."""
        self.failures = 0

    def move(self, address: str) -> None:
        """Go to `address` next (the referee hosting the bot's match); a later failure goes
        back to the list."""
        if address in self.addresses:
            self.index, self.visiting = self.addresses.index(address), None
        else:
            self.visiting = address

    def failed(self) -> timedelta:
        """Move on to the next address; return how long to wait before trying it."""
        self.failures += 1
        if self.visiting is not None:  # back to the list, where it was left
            self.visiting = None
            return FIRST_BACKOFF * (0.5 + random.random())
        self.index = (self.index + 1) % len(self.addresses)
        rounds = (self.failures - 1) // len(self.addresses)
        pause: timedelta = min(FIRST_BACKOFF * 2 ** min(rounds, 16), MAX_BACKOFF)
        return pause * (0.5 + random.random())
