"""Ports for the services a process is about to start: whether one is free, and a free one."""

from __future__ import annotations

import random
import socket
from collections.abc import Iterable
from pathlib import Path

EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
"""Where Linux says which ports it hands to outgoing connections as their local ports."""

LOWEST_CHOSEN_PORT = 10_000
"""`free_port` never goes below this: the registered services people run live lower."""

_handed_out: set[int] = set()
"""Ports `free_port` has returned in this process: never returned twice."""


def free_port() -> int:
    """A TCP port nobody listens on now, for a service this process is about to start.

    It is chosen below the kernel's ephemeral range: a port the kernel hands out (bind to 0)
    can be taken as the local port of any outgoing connection between this choice and the
    service's bind, which on a busy machine happens (a demo's referee once found its port taken
    while embedded Postgres started). Outside that range only another listener can take it.
    """
    low = _ephemeral_low()
    if low - LOWEST_CHOSEN_PORT >= 1_000:
        chooser = random.SystemRandom()
        for _ in range(500):
            port = chooser.randrange(LOWEST_CHOSEN_PORT, low)
            if port not in _handed_out and is_free(port, "127.0.0.1") and is_free(port):
                _handed_out.add(port)
                return port
    while True:  # no range to choose below (or all taken): the kernel's choice
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port not in _handed_out:
            _handed_out.add(port)
            return port


def reserve(ports: Iterable[int]) -> None:
    """Never let `free_port` in this process return one of `ports`: a stack's planned ports
    (its runners' metrics ports follow the first, unchosen) stay out of its embedded Redis's
    choice, which is made after they were checked free."""
    _handed_out.update(ports)


def _ephemeral_low() -> int:
    """The lowest port the kernel gives outgoing connections (0 where it cannot be read)."""
    try:
        return int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def is_free(port: int, host: str = "0.0.0.0") -> bool:
    """Whether a listening socket can be bound to `port` on `host` now."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        # SO_REUSEADDR: a port held only by connections in TIME_WAIT still counts as free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True
