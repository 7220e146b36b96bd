"""Which addresses a TCP port is listened on, read from /proc/net (Linux)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

LISTEN = "0A"


def listeners(port: int) -> set[str]:
    """The local addresses listening on `port` ("0.0.0.0", "::", "127.0.0.1", ...)."""
    found: set[str] = set()
    for table, width in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state = fields[1], fields[3]
            address, _, hex_port = local.partition(":")
            if state != LISTEN or int(hex_port, 16) != port:
                continue
            raw = bytes.fromhex(address)
            # /proc/net prints each 32-bit word in host (little-endian) order.
            words = b"".join(raw[i : i + 4][::-1] for i in range(0, width, 4))
            ip = ipaddress.ip_address(words)
            mapped = getattr(ip, "ipv4_mapped", None)  # gRPC binds 127.0.0.1 as ::ffff:127.0.0.1
            found.add(str(mapped or ip))
    return found
