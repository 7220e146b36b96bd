"""`arena up --tls-cert --tls-key --tls-ca`: the referee and the web serve TLS, the stack's own
clients (health checks, the worker that creates a tournament's matches) reach the referee over
TLS, and bots and commands given the CA play a tournament through it; a plaintext command is
told to pass --tls."""

from __future__ import annotations

import signal
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.ops.home import StackInfo
from arena.ops.ports import free_port
from tests.cli.test_up import _env, _up_args
from tests.tlscerts import Pki

pytestmark = pytest.mark.integration
ARENA = [sys.executable, "-m", "arena.cli.main"]


@pytest.fixture
def tls_stack(tmp_path: Path, fresh_database_url: str) -> Iterator[tuple[dict[str, str], Pki, int]]:
    """`arena up` over TLS in a fresh ARENA_HOME; (a client's environment, the PKI, web port)."""
    pki = Pki.create(tmp_path / "pki")
    home = tmp_path / "home"
    env = _env(home, fresh_database_url)
    web_port = free_port()
    argv = [*_up_args(), "--web-port", str(web_port), "--web-metrics-port", str(free_port())]
    argv += ["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)]
    argv += ["--tls-ca", str(pki.ca)]
    process = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("register a bot"):
                break
        assert StackInfo.read(home) is not None, "".join(lines) + process.stderr.read()  # type: ignore[union-attr]
        yield env, pki, web_port
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err


def _arena(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *argv], env=env, capture_output=True, text=True, timeout=60)


def test_a_tournament_is_played_through_a_tls_stack(
    tls_stack: tuple[dict[str, str], Pki, int],
) -> None:
    env, pki, web_port = tls_stack
    plain = _arena(env, "tournament", "list")
    assert plain.returncode == 5
    assert plain.stderr.startswith("arena: the referee at 127.0.0.1:"), plain.stderr
    assert "speaks TLS and this client does not; pass --tls" in plain.stderr
    trusted = {**env, "ARENA_TLS_CA": str(pki.ca)}
    names = ["tls-1", "tls-2", "tls-3"]
    tokens = []
    for name in names:
        done = _arena(trusted, "bot", "register", name, "--quiet")
        assert done.returncode == 0, done.stderr
        tokens.append(done.stdout.strip())
    bots = [
        subprocess.Popen(
            [*ARENA, "bot", "run", "--strategy", "random", "--report", "none"],
            env={**trusted, "ARENA_BOT_TOKEN": token},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for token in tokens
    ]
    try:
        created = _arena(
            trusted, "tournament", "create", "--game", "crossing", "--bots", ",".join(names),
            "--table-size", "2", "--rounds", "1", "--quiet",
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        tournament = created.stdout.strip()
        shown = ""
        for _ in range(120):  # the worker pairs the round and creates its matches over TLS
            shown = _arena(trusted, "tournament", "show", tournament).stdout
            if "finished" in shown.split("\n")[1]:
                break
            time.sleep(1)
        assert "finished" in shown.split("\n")[1], shown
    finally:
        for bot in bots:
            bot.terminate()
        for bot in bots:
            bot.wait(timeout=30)
    context = ssl.create_default_context(cafile=pki.ca)
    url = f"https://127.0.0.1:{web_port}/healthz"
    with urllib.request.urlopen(url, timeout=10, context=context) as reply:
        assert reply.status == 200
