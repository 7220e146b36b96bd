"""`--address` takes several referees: a malformed list is one line and exit code 2, with no
traceback; a one-shot command given a dead referee first calls the live one after it."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.errors import ExitCode
from arena.cli.main import main
from tests.cli.conftest import RefereeThread

ROOT = Path(__file__).resolve().parents[2]
BAD_LISTS = [
    ("127.0.0.1:1,,127.0.0.1:2", "empty address"),
    ("127.0.0.1:1,", "empty address"),
    ("127.0.0.1:1,127.0.0.1:http", "bad port 'http'"),
    ("127.0.0.1:1,127.0.0.1:99999", "bad port '99999'"),
    ("127.0.0.1:1,referee", "'referee' is not HOST:PORT"),
]


def _dead_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def quiet_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    """`bot run` configures the root logger; undo that after the test."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)


@pytest.mark.parametrize(("address", "phrase"), BAD_LISTS)
@pytest.mark.parametrize(
    "argv",
    [["bot", "run", "--token", "t"], ["bot", "register", "zed"], ["tournament", "list"]],
    ids=lambda v: " ".join(v[:2]),
)
def test_a_malformed_address_list_is_one_line_and_a_usage_error(
    argv: list[str],
    address: str,
    phrase: str,
    capfd: pytest.CaptureFixture[str],
    quiet_logging: None,
) -> None:
    code = main([*argv, "--address", address])
    err = capfd.readouterr().err
    assert err.splitlines() == [err.strip()], err
    assert err.startswith(f"arena: bad --address {address!r}: "), err
    assert phrase in err and "HOST:PORT,HOST:PORT" in err, err
    assert code == ExitCode.USAGE


def test_a_malformed_arena_address_is_refused_the_same_way(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], quiet_logging: None
) -> None:
    monkeypatch.setenv("ARENA_ADDRESS", "a:1,,b:2")
    assert main(["bot", "run", "--token", "t"]) == ExitCode.USAGE
    assert capfd.readouterr().err.startswith("arena: bad --address 'a:1,,b:2': empty address")


def test_the_program_prints_no_traceback_for_a_bad_list(tmp_path: Path) -> None:
    env = {**os.environ, "ARENA_HOME": str(tmp_path)}
    argv = ["bot", "run", "--token", "t", "--address", "127.0.0.1:1,,127.0.0.1:2"]
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == ExitCode.USAGE, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("arena: bad --address"), done.stderr


@pytest.mark.integration
def test_a_one_shot_command_calls_the_first_referee_that_answers(
    referee: RefereeThread, capfd: pytest.CaptureFixture[str]
) -> None:
    dead = _dead_address()
    code = main(["bot", "register", "listed", "--address", f"{dead},{referee.address}"])
    out, err = capfd.readouterr()
    assert code == ExitCode.OK, err
    assert "registered bot listed" in out
