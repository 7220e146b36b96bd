"""Listening addresses: what `--bind HOST` means to a gRPC server, an HTTP server and a client."""

from __future__ import annotations

BIND_ENV = "ARENA_BIND"
"""The interface `arena serve` (and the Celery processes' metrics) listen on when no `--bind`."""
EVERY_INTERFACE = ("0.0.0.0", "::", "[::]", "")


def grpc_address(host: str, port: int) -> str:
    """The gRPC listening address of `host` and `port` (an IPv6 host in brackets)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def http_host(host: str) -> str:
    """`host` as an HTTP server binds it: no brackets; every interface is 0.0.0.0."""
    return "0.0.0.0" if host in EVERY_INTERFACE else host.strip("[]")


def connect_host(host: str) -> str:
    """Where a client on this machine reaches a server bound to `host`."""
    return "127.0.0.1" if host in EVERY_INTERFACE else host.strip("[]")
