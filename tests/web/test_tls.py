"""`arena web --tls-cert --tls-key [--tls-client-ca]` serves HTTPS, against a throwaway CA made in
the test: a browser that trusts the CA gets the pages; plain HTTP, another CA, and (with a client
CA) a client without a certificate get nothing."""

from __future__ import annotations

import contextlib
import os
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.ops.ports import free_port
from tests.tlscerts import Pki

pytestmark = pytest.mark.integration


@contextlib.contextmanager
def _web(database_url: str, home: Path, tls: list[str], client: ssl.SSLContext) -> Iterator[int]:
    """`arena web` on a free port with the given --tls-* flags, once it answers `client`;
    yields the port."""
    port = free_port()
    env = {**os.environ, "ARENA_DATABASE_URL": database_url, "ARENA_HOME": str(home)}
    argv = [sys.executable, "-m", "arena.cli.main", "web", "--port", str(port)]
    argv += ["--metrics-port", "-1", *tls]
    log = home / "web.log"
    with log.open("wb") as output:
        process = subprocess.Popen(argv, env=env, cwd=home, stdout=output, stderr=output)
    try:
        for _ in range(300):
            with contextlib.suppress(OSError):
                _get(f"https://127.0.0.1:{port}/healthz", client)
                break
            assert process.poll() is None, log.read_text()
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


def _get(url: str, context: ssl.SSLContext | None = None) -> int:
    with urllib.request.urlopen(url, timeout=10, context=context) as reply:
        return int(reply.status)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return Pki.create(tmp_path_factory.mktemp("pki"))


def test_the_web_serves_https_to_a_client_that_trusts_its_ca(
    migrated_database_url: str, pki: Pki, tmp_path: Path
) -> None:
    tls = ["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)]
    trusting = ssl.create_default_context(cafile=pki.ca)
    with _web(migrated_database_url, tmp_path, tls, trusting) as port:
        assert _get(f"https://127.0.0.1:{port}/", trusting) == 200
        assert _get(f"https://localhost:{port}/healthz", trusting) == 200
        with pytest.raises(urllib.error.URLError) as caught:
            _get(f"https://127.0.0.1:{port}/", ssl.create_default_context(cafile=pki.other_ca))
        assert isinstance(caught.value.reason, ssl.SSLCertVerificationError)
        with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
            _get(f"http://127.0.0.1:{port}/")  # plain HTTP at a TLS port


def test_the_web_with_a_client_ca_refuses_a_browser_without_a_certificate(
    migrated_database_url: str, pki: Pki, tmp_path: Path
) -> None:
    tls = ["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)]
    tls += ["--tls-client-ca", str(pki.ca)]
    member = ssl.create_default_context(cafile=pki.ca)
    member.load_cert_chain(pki.client_cert, pki.client_key)
    with _web(migrated_database_url, tmp_path, tls, member) as port:
        anonymous = ssl.create_default_context(cafile=pki.ca)
        with pytest.raises((ssl.SSLError, urllib.error.URLError, ConnectionError)):
            _get(f"https://127.0.0.1:{port}/", anonymous)
        assert _get(f"https://127.0.0.1:{port}/", member) == 200


def test_a_missing_certificate_stops_the_web_with_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    argv = [sys.executable, "-m", "arena.cli.main", "web", "--tls-cert", "/no/cert.pem"]
    done = subprocess.run(
        [*argv, "--tls-key", "/no/key.pem"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "arena: cannot read /no/cert.pem (No such file or directory); check --tls-cert; give "
        "readable PEM files"
    ]
