"""`arena up`: a second one on the same data directory leaves the running stack alone and says
where it is; other commands find the stack through the data directory; logs go to files.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.ops.home import StackInfo
from arena.ops.ports import free_port
from tests.cli.listeners import listeners

pytestmark = pytest.mark.integration


def _env(home: Path, database_url: str) -> dict[str, str]:
    # No ARENA_REDIS_URL: the stack starts an embedded Redis in ARENA_HOME, so its Celery worker
    # shares no queue with another test running in parallel.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env.update(ARENA_HOME=str(home), ARENA_DATABASE_URL=database_url)
    return env


def _up_args() -> list[str]:
    return [
        sys.executable,
        "-m",
        "arena.cli.main",
        "up",
        "--port",
        str(free_port()),
        "--referee-metrics-port",
        str(free_port()),
        "--worker-metrics-port",
        str(free_port()),
        "--beat-metrics-port",
        str(free_port()),
        "--runner-metrics-port",
        str(free_port()),
        "--concurrency",
        "1",
    ]


@pytest.fixture
def stack(tmp_path: Path, fresh_database_url: str) -> Iterator[tuple[Path, dict[str, str]]]:
    """`arena up` running in a fresh ARENA_HOME, stopped with Ctrl-C at the end."""
    home = tmp_path / "home"
    env = _env(home, fresh_database_url)
    process = subprocess.Popen(
        _up_args(), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:  # event-driven: read until it says it is up
            lines.append(line)
            if line.startswith("register a bot"):
                break
        assert StackInfo.read(home) is not None, "".join(lines) + process.stderr.read()  # type: ignore[union-attr]
        yield home, env
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    assert not StackInfo.path(home).exists(), "the state file is removed on the way out"
    text = "".join(lines)
    assert f"logs        {home / 'logs'}/referee.log" in text
    assert "(this machine only; --bind to change)" in text, text
    assert '"level"' not in text + out, "no JSON logs on the console"
    assert (home / "logs" / "worker.log").stat().st_size > 0


def test_a_second_up_leaves_the_running_stack_alone(stack: tuple[Path, dict[str, str]]) -> None:
    home, env = stack
    running = StackInfo.read(home)
    assert running is not None
    token = (home / "admin-token").read_text()
    second = subprocess.run(_up_args(), env=env, capture_output=True, text=True, timeout=60)
    assert second.returncode == 0, second.stderr
    assert f"arena is already running in {home} (pid {running.pid})" in second.stdout
    assert running.address in second.stdout
    assert (home / "admin-token").read_text() == token, "the admin token is not overwritten"
    assert StackInfo.read(home) == running
    # Other commands find the stack through ARENA_HOME: no --address, no --admin-token.
    listed = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "tournament", "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip() == "no tournaments"
    created = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "match", "--game", "hart", "--bots", "x,y,z"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert created.returncode == 3, created.stderr  # the token was accepted; bot x is unknown
    assert created.stderr.startswith("arena: unknown bot"), created.stderr


def test_up_listens_on_loopback_only_and_says_so(stack: tuple[Path, dict[str, str]]) -> None:
    home, _ = stack
    running = StackInfo.read(home)
    assert running is not None
    port = int(running.address.rpartition(":")[2])
    ports = [
        port,
        running.referee_metrics_port,
        running.worker_metrics_port,
        running.beat_metrics_port,
    ]
    deadline = time.monotonic() + 30  # the worker's metrics port opens as it finishes starting
    while not all(listeners(p) for p in ports):
        assert time.monotonic() < deadline, {p: listeners(p) for p in ports}
        time.sleep(0.1)
    assert {p: listeners(p) for p in ports} == {p: {"127.0.0.1"} for p in ports}
    assert running.address == f"127.0.0.1:{port}"
