"""`arena serve --bind HOST` and `arena web --bind HOST` listen where they are told, and only
there; without it a referee listens on every interface (`arena up`'s default, loopback, is
tested in test_up.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.ops.ports import free_port
from tests.cli.listeners import listeners
from tests.referee.harness import ADMIN

pytestmark = pytest.mark.integration


def _serve(
    tmp_path: Path, database_url: str, bind: list[str], env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], int, int]:
    port, metrics = free_port(), free_port()
    environ = {k: v for k, v in os.environ.items() if k != "ARENA_BIND"}
    environ.update(ARENA_HOME=str(tmp_path / "home"), ARENA_DATABASE_URL=database_url)
    environ.update(ARENA_ADMIN_TOKEN=ADMIN, **(env or {}))
    command = [sys.executable, "-m", "arena.cli.main", "serve", "--port", str(port)]
    command += ["--metrics-port", str(metrics), *bind]
    process = subprocess.Popen(
        command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    return process, port, metrics


def _until_listening(process: subprocess.Popen[str], *ports: int) -> str:
    """Wait until every port is listened on; return the line the referee printed."""
    until = time.monotonic() + 60
    assert process.stderr is not None
    for line in process.stderr:
        if "listening on" in line:
            break
        assert time.monotonic() < until and process.poll() is None, line
    while not all(listeners(p) for p in ports):
        assert time.monotonic() < until, "not listening"
        time.sleep(0.05)
    return line


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.communicate(timeout=30)  # reads and closes stderr


@pytest.mark.parametrize(
    ("bind", "env", "expected"),
    [
        (["--bind", "127.0.0.1"], {}, {"127.0.0.1"}),
        ([], {"ARENA_BIND": "127.0.0.1"}, {"127.0.0.1"}),
        ([], {}, None),
    ],
    ids=["flag", "environment", "default-everywhere"],
)
def test_serve_listens_where_it_is_told(
    tmp_path: Path,
    fresh_database_url: str,
    bind: list[str],
    env: dict[str, str],
    expected: set[str] | None,
) -> None:
    process, port, metrics = _serve(tmp_path, fresh_database_url, bind, env)
    try:
        line = _until_listening(process, port, metrics)
        if expected is None:  # every interface: the gRPC port on [::], metrics on 0.0.0.0
            assert listeners(port) & {"::", "0.0.0.0"}, listeners(port)
            assert listeners(metrics) == {"0.0.0.0"}
            assert f"listening on [::]:{port}, metrics on 0.0.0.0:{metrics}" in line
        else:
            assert listeners(port) == expected
            assert listeners(metrics) == expected
            assert f"listening on 127.0.0.1:{port}, metrics on 127.0.0.1:{metrics}" in line
    finally:
        _stop(process)
