"""`arena up` and `arena demo` never put the admin token or a bot token on a command line."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from arena.ops import stack
from arena.ops.bot_processes import BotProcesses
from arena.ops.stack import Stack, StackConfig
from arena.referee.auth import write_secret

SECRET = "arena-secret-token-for-this-test"


def _cmdline(pid: int) -> str:
    """What `ps` shows any user of the machine."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def test_a_bot_process_gets_its_token_from_the_environment(tmp_path: Path) -> None:
    bots = BotProcesses("127.0.0.1:9")  # nothing listens: the bot keeps retrying
    bots.start(SECRET, "random", tmp_path / "bot.log")
    process = bots.processes[0]
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and "arena.cli.main" not in _cmdline(process.pid):
            time.sleep(0.05)
        assert "bot run" in _cmdline(process.pid)
        assert SECRET not in _cmdline(process.pid)
        time.sleep(1.0)
        assert process.poll() is None, (tmp_path / "bot.log").read_text()  # it found its token
    finally:
        process.terminate()
        process.wait(10)


class _Recorder:
    """Stands in for `subprocess.Popen`: records what would be started."""

    started: list[tuple[list[str], dict[str, str]]] = []

    def __init__(self, args: list[str], env: dict[str, str], **_: Any) -> None:
        self.started.append((list(args), dict(env)))
        self.pid = os.getpid()

    def poll(self) -> int:
        return 0

    def wait(self, timeout: float | None = None) -> int:
        return 0


def test_the_stack_passes_the_admin_token_by_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", SECRET)
    monkeypatch.setattr(subprocess, "Popen", _Recorder)
    monkeypatch.setattr(stack, "wait_healthy", lambda address, timeout, **_: None)
    monkeypatch.setattr(stack, "wait_http", lambda url, timeout: None)
    monkeypatch.setattr(stack, "signal_group", lambda process, sig: None)
    running = Stack(StackConfig(data_dir=tmp_path))
    monkeypatch.setattr(running.services, "start", lambda: None)
    monkeypatch.setattr(running.services, "stop", lambda: None)
    monkeypatch.setattr(running.services, "environ", dict)
    _Recorder.started.clear()
    running.start()
    running.stop()
    # The referee, the worker, beat, a runner of hosted bots where bwrap is installed, the web.
    runner = ["arena.cli.main"] if shutil.which("bwrap") is not None else []
    assert [args[2] for args, _ in _Recorder.started] == [
        "arena.cli.main",
        "celery",
        "celery",
        *runner,
        "arena.cli.main",
    ]
    for args, env in _Recorder.started:
        assert SECRET not in " ".join(args)
        assert env["ARENA_ADMIN_TOKEN"] == SECRET


def test_a_secret_file_is_never_readable_by_others(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh-token"
        write_secret(fresh, SECRET)
        stale = tmp_path / "stale-token"
        stale.write_text("old")
        stale.chmod(0o644)
        write_secret(stale, SECRET)
    finally:
        os.umask(old)
    for path in (fresh, stale):
        assert path.stat().st_mode & 0o777 == 0o600
        assert path.read_text() == SECRET
