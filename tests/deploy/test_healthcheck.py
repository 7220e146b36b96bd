"""deploy/healthcheck.py, the containers' probe, against real gRPC and HTTP servers on loopback."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from types import ModuleType

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.ops.ports import free_port
from arena.ops.tls import ServerTls
from tests.deploy.support import load_healthcheck
from tests.tlscerts import Pki


@pytest.fixture(scope="module")
def healthcheck() -> ModuleType:
    """deploy/healthcheck.py as a module."""
    module: ModuleType = load_healthcheck()
    return module


@pytest.fixture
def health_server() -> Iterator[tuple[str, health.HealthServicer]]:
    """A gRPC server with only the standard health service; its address and servicer."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        server.stop(grace=None)


class _Metrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/metrics" else 404)
        self.end_headers()
        self.wfile.write(b"up 1\n")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[str]:
    """A local HTTP server answering /metrics; its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Metrics)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_grpc_serving_is_healthy(
    healthcheck: ModuleType, health_server: tuple[str, health.HealthServicer]
) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert healthcheck.main(["grpc", address]) == 0


def test_grpc_not_serving_is_unhealthy(
    healthcheck: ModuleType,
    health_server: tuple[str, health.HealthServicer],
    capsys: pytest.CaptureFixture[str],
) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert healthcheck.main(["grpc", address]) == 1
    assert "NOT_SERVING" in capsys.readouterr().err


def test_grpc_nothing_listening_is_unhealthy(
    healthcheck: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert healthcheck.main(["grpc", f"127.0.0.1:{free_port()}"]) == 1
    assert "UNAVAILABLE" in capsys.readouterr().err


def test_http(healthcheck: ModuleType, http_server: str) -> None:
    assert healthcheck.main(["http", f"{http_server}/metrics"]) == 0
    assert healthcheck.main(["http", f"{http_server}/nothing"]) == 1
    assert healthcheck.main(["http", f"http://127.0.0.1:{free_port()}/metrics"]) == 1


def test_usage(healthcheck: ModuleType) -> None:
    assert healthcheck.main(["ftp", "x"]) == 2
    assert healthcheck.main([]) == 2


@pytest.fixture
def tls_health_server(tmp_path: Path) -> Iterator[tuple[str, Pki]]:
    """A health server over TLS with a throwaway certificate (SERVING); its address and PKI."""
    pki = Pki.create(tmp_path / "pki")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    credentials = ServerTls(pki.server_cert, pki.server_key).grpc_credentials()
    port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    try:
        yield f"127.0.0.1:{port}", pki
    finally:
        server.stop(grace=None)


def test_a_tls_referee_is_checked_over_tls_with_the_bots_settings(
    healthcheck: ModuleType,
    tls_health_server: tuple[str, Pki],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    address, pki = tls_health_server
    monkeypatch.delenv("ARENA_TLS", raising=False)
    monkeypatch.delenv("ARENA_TLS_CA", raising=False)
    monkeypatch.setenv("ARENA_TLS_CERT", str(pki.server_cert))  # as in the referee's container
    assert healthcheck.main(["grpc", address]) == 1  # the system's roots do not know the CA
    assert "UNAVAILABLE" in capsys.readouterr().err
    monkeypatch.setenv("ARENA_TLS_CA", str(pki.ca))
    assert healthcheck.main(["grpc", address]) == 0
    monkeypatch.delenv("ARENA_TLS_CERT")
    assert healthcheck.main(["grpc", address]) == 1  # plaintext at a TLS port
