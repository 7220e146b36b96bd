"""Separate network namespaces joined by a bridge: each referee a host of its own (`ip netns`).

Namespaces share the file system, so the referees reach Postgres and Redis over their Unix
sockets, while bots and referees reach each other only over the bridge, at addresses of their own.
Needs root and iproute2; `available()` says whether this machine can.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


def available() -> str:
    """Empty if namespaces can be made here; else why not."""
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed"
    probe = f"arena-probe-{secrets.token_hex(3)}"
    try:
        _ip("netns", "add", probe)
        _ip("netns", "delete", probe)
    except (subprocess.CalledProcessError, OSError) as exc:
        return f"cannot create a network namespace here ({exc}); it needs root"
    return ""


class Hosts:
    """`count` namespaces on one bridge in a random 10.X.Y.0/24; the test process stays in the
    root namespace at 10.X.Y.1 and host i is 10.X.Y.(10 + i)."""

    def __init__(self, count: int) -> None:
        tag = secrets.token_hex(2)
        self.bridge = f"arbr{tag}"
        octets = secrets.randbelow(200) + 20, secrets.randbelow(250) + 1
        self.prefix = f"10.{octets[0]}.{octets[1]}"
        self.names = [f"arena-{tag}-{i}" for i in range(count)]
        self._links = [f"arv{tag}{i}" for i in range(count)]

    @property
    def ips(self) -> list[str]:
        return [f"{self.prefix}.{10 + i}" for i in range(len(self.names))]

    def wrap(self, index: int) -> list[str]:
        """The command prefix that runs a process on host `index`."""
        return ["ip", "netns", "exec", self.names[index]]

    def __enter__(self) -> Hosts:
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{self.prefix}.1/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for name, link, ip in zip(self.names, self._links, self.ips, strict=True):
            _ip("netns", "add", name)
            _ip("link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", name)
            _ip("link", "set", link, "master", self.bridge, "up")
            _ip("-n", name, "addr", "add", f"{ip}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up")
            _ip("-n", name, "link", "set", "lo", "up")
        return self

    def __exit__(self, *_: object) -> None:
        for name, link in zip(self.names, self._links, strict=True):
            subprocess.run(["ip", "link", "delete", link], capture_output=True, timeout=20)
            subprocess.run(["ip", "netns", "delete", name], capture_output=True, timeout=20)
        subprocess.run(["ip", "link", "delete", self.bridge], capture_output=True, timeout=20)
