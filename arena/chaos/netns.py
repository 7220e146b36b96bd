"""Network namespaces for the chaos soak's `referee-partition` fault (root only).

A process cannot be moved into another network namespace from outside, and its open sockets
stay where they were made; so a referee that may be cut off must start inside a namespace of
its own. Referee i runs in `ac<tag>-<i>` (`ip netns exec`), joined to the host by a veth pair:

    host side  10.A.i.1  bots, workers and the soak reach the referee from here
               10.A.i.3  Redis listens here too: the referee's Redis URL names this address
    namespace  10.A.i.2  the referee's gRPC and metrics ports

Postgres listens on a Unix socket in the soak's folder, which namespaces do not separate.
`cut(i)` adds a blackhole route to 10.A.i.3 inside namespace i: the referee's packets to Redis
vanish (its connections hang until their timeouts, as in a real partition) while its bots and
its database stay reachable; `heal(i)` removes it. `remove()` deletes the namespaces (and with
them the veth pairs).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field


def can_partition() -> str:
    """Why `referee-partition` cannot run here, or "" when it can."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    try:
        subprocess.run(["ip", "netns", "list"], capture_output=True, check=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"`ip netns` does not work here ({exc})"
    return ""


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


@dataclass
class Namespaces:
    """One network namespace per referee, named after `tag` (unique per soak: its pid)."""

    tag: int = field(default_factory=os.getpid)
    count: int = 0

    @property
    def net(self) -> str:
        """The first two octets of every address (one /16 per soak, from its tag; above the
        10.20-10.219 range of tests/referee/netns.py's bridges)."""
        return f"10.{220 + self.tag % 30}"

    def name(self, i: int) -> str:
        """Namespace i's name."""
        return f"ac{self.tag}-{i}"

    def host(self, i: int) -> str:
        """Where referee i listens (its namespace's side of the veth)."""
        return f"{self.net}.{i}.2"

    def redis_address(self, i: int) -> str:
        """The host address referee i reaches Redis at (the one `cut` removes)."""
        return f"{self.net}.{i}.3"

    def prefix(self, i: int) -> list[str]:
        """The command prefix that runs a program in namespace i."""
        return ["ip", "netns", "exec", self.name(i)]

    def create(self, count: int) -> None:
        """Create `count` namespaces, each joined to the host by a veth pair."""
        for i in range(count):
            outside, inside = f"ac{self.tag % 100000}h{i}", f"ac{self.tag % 100000}n{i}"
            _ip("netns", "add", self.name(i))
            self.count = i + 1
            _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
            _ip("link", "set", inside, "netns", self.name(i))
            _ip("addr", "add", f"{self.net}.{i}.1/24", "dev", outside)
            _ip("addr", "add", f"{self.redis_address(i)}/24", "dev", outside)
            _ip("link", "set", outside, "up")
            inner = ["netns", "exec", self.name(i), "ip"]
            _ip(*inner, "addr", "add", f"{self.host(i)}/24", "dev", inside)
            _ip(*inner, "link", "set", inside, "up")
            _ip(*inner, "link", "set", "lo", "up")

    def cut(self, i: int) -> None:
        """Cut referee i off from Redis."""
        _ip("netns", "exec", self.name(i), "ip", "route", "add", "blackhole", self.redis_address(i))

    def heal(self, i: int) -> None:
        """Give referee i its route to Redis back."""
        _ip("netns", "exec", self.name(i), "ip", "route", "del", "blackhole", self.redis_address(i))

    def remove(self) -> None:
        """Delete every namespace this made (their veth pairs go with them)."""
        for i in range(self.count):
            subprocess.run(
                ["ip", "netns", "del", self.name(i)], capture_output=True, timeout=20, check=False
            )
        self.count = 0
