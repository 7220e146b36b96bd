"""Container health checks of Arena processes: a referee's gRPC health, a metrics endpoint.

    arena-healthcheck grpc localhost:50051          # grpc.health.v1.Health, overall status
    arena-healthcheck http http://localhost:9103/metrics

Exits 0 when healthy, 1 otherwise, with the reason on stderr (Docker keeps it in
`docker inspect`). Installed as /usr/local/bin/arena-healthcheck by deploy/Dockerfile.
"""

from __future__ import annotations

import sys
import urllib.request

TIMEOUT_SECONDS = 4.0


def check_grpc(address: str) -> str | None:
    """None when the server's overall health is SERVING, else the reason."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    try:
        with grpc.insecure_channel(address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=TIMEOUT_SECONDS)
    except grpc.RpcError as exc:
        return f"{address}: {exc.code().name} {exc.details()}"
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        return f"{address}: {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}"
    return None


def check_http(url: str) -> str | None:
    """None when the URL answers 200, else the reason."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as reply:
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
