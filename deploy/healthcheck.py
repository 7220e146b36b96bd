"""Container health checks of Arena processes: a referee's gRPC health, a metrics endpoint.

    arena-healthcheck grpc localhost:50051          # grpc.health.v1.Health, overall status
    arena-healthcheck http http://localhost:9103/metrics

Exits 0 when healthy, 1 otherwise, with the reason on stderr (Docker keeps it in
`docker inspect`). Installed as /usr/local/bin/arena-healthcheck by deploy/Dockerfile.

A referee that serves TLS (ARENA_TLS_CERT set in its environment, or ARENA_TLS=1) is checked over
TLS, with the client settings a bot would use: ARENA_TLS_CA (default: the system's roots),
ARENA_TLS_SERVER_NAME (a name in the certificate, since the check dials localhost) and, for
mutual TLS, ARENA_TLS_CLIENT_CERT and ARENA_TLS_CLIENT_KEY. An https URL's chain is checked
against ARENA_TLS_CA (default: the system's roots), not its host name: the check dials localhost.
"""

from __future__ import annotations

import os
import ssl
import sys
import urllib.request
from pathlib import Path
from typing import Any

TIMEOUT_SECONDS = 4.0


def check_grpc(address: str) -> str | None:
    """None when the server's overall health is SERVING, else the reason."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    try:
        with _grpc_channel(grpc, address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT_SECONDS)
    except grpc.RpcError as exc:
        return f"{address}: {exc.code().name} {exc.details()}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        return f"{address}: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}"
    return None


def _grpc_channel(grpc: Any, address: str) -> Any:
    """A plaintext channel, or a TLS one when this process's referee serves TLS."""
    env = os.environ
    if not env.get("ARENA_TLS_CERT") and env.get("ARENA_TLS", "") not in ("1", "true", "yes", "on"):
        return grpc.insecure_channel(address)

    def read(name: str) -> bytes | None:
        return Path(env[name]).read_bytes() if env.get(name) else None

    credentials = grpc.ssl_channel_credentials(
        read("ARENA_TLS_CA"), read("ARENA_TLS_CLIENT_KEY"), read("ARENA_TLS_CLIENT_CERT")
    )
    name = env.get("ARENA_TLS_SERVER_NAME", "")
    options = [("grpc.ssl_target_name_override", name)] if name else []
    return grpc.secure_channel(address, credentials, options=options)


def check_http(url: str) -> str | None:
    """None when the URL answers 200, else the reason."""
    context = ssl.create_default_context(cafile=os.environ.get("ARENA_TLS_CA") or None)
    context.check_hostname = False  # localhost is rarely a name in the certificate
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS, context=context) as reply:
            return None if reply.status == 200 else f"{url}: HTTP {reply.status}"
    except OSError as exc:
        return f"{url}: {exc}"


def main(argv: list[str]) -> int:
    """`arena-healthcheck grpc ADDRESS` or `arena-healthcheck http URL`."""
    checks = {"grpc": check_grpc, "http": check_http}
    if len(argv) != 2 or argv[0] not in checks:
        print("usage: arena-healthcheck grpc HOST:PORT | http URL", file=sys.stderr)
        return 2
    problem = checks[argv[0]](argv[1])
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
