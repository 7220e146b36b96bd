"""Waiting for a service the stack started to answer: a referee's gRPC health, a web page."""

from __future__ import annotations

import ssl
import time
import urllib.request
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.sdk.tls import PLAINTEXT, ClientTls


def wait_healthy(
    address: str,
    timeout: timedelta,
    alive: Callable[[], bool] = lambda: True,
    tls: ClientTls = PLAINTEXT,
) -> None:
    """Block until the referee at `address` reports SERVING; stop early if `alive()` is false."""
    deadline = time.monotonic() + timeout.total_seconds()
    last = ""
    while time.monotonic() < deadline:
        if not alive():
            raise ChildProcessError(f"the referee exited before serving on {address}")
        try:
            with tls.channel(address) as channel:
                # types-grpcio-health-checking declares HealthStub without its RPC methods.
                check = health_pb2_grpc.HealthStub(channel).Check  # type: ignore[attr-defined]
                reply: health_pb2.HealthCheckResponse = check(
                    health_pb2.HealthCheckRequest(service=""), timeout=1
                )
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
        except grpc.RpcError as exc:
            last = exc.code().name if hasattr(exc, "code") else str(exc)
        time.sleep(0.2)
    raise TimeoutError(f"the referee at {address} did not become healthy ({last})")


def wait_http(url: str, timeout: timedelta) -> None:
    """Block until `url` answers 200 (an https URL's certificate unchecked: this only asks
    whether the web server the stack started is up)."""
    deadline = time.monotonic() + timeout.total_seconds()
    last = ""
    unchecked = ssl.create_default_context()
    unchecked.check_hostname = False
    unchecked.verify_mode = ssl.CERT_NONE
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1, context=unchecked) as reply:
                if reply.status == 200:
                    return
        except OSError as exc:
            last = str(exc)
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer ({last})")


def last_line(log: Path) -> str:
    """The last line a service wrote to `log` (empty if none): usually why it exited."""
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return next((line.strip() for line in reversed(lines) if line.strip()), "")[:300]
