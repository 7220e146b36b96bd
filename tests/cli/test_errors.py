"""Every client command, given the ordinary mistakes of issue 14, prints exactly one line on stderr
(`arena: ...`), no traceback, and exits with the code of the mistake's class.
"""

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
from tests.cli.conftest import ADMIN, RefereeThread

pytestmark = pytest.mark.integration

USAGE, NOT_FOUND, REFUSED, UNAVAILABLE = (
    ExitCode.USAGE,
    ExitCode.NOT_FOUND,
    ExitCode.REFUSED,
    ExitCode.UNAVAILABLE,
)
TOKEN = f"--admin-token={ADMIN}"

# (argv, exit code, a phrase the one line must contain). "{bad}" is a non-JSON file.
LIVE_CASES: list[tuple[list[str], ExitCode, str]] = [
    (
        ["match", "--game", "crossing", "--bots", "alice,bob", "--admin-token=wrong"],
        REFUSED,
        "wrong admin token",
    ),
    (["match", "--game", "hart", "--bots", "alice,bob", TOKEN], USAGE, "3-6 seats, not 2"),
    (["match", "--game", "crossing", "--bots", "alice,nobody", TOKEN], NOT_FOUND, "nobody"),
    (["match", "--game", "crossing", "--bots", "alice,alice", TOKEN], USAGE, "only one seat"),
    (
        ["match", "--game", "hart", "--bots", "alice,bob,carol", "--option", "variant=nope", TOKEN],
        USAGE,
        "variant",
    ),
    (
        ["match", "--game", "hart", "--bots", "alice,bob,carol", "--option", "bogus=1", TOKEN],
        USAGE,
        "bogus",
    ),
    (
        ["match", "--game", "crossing", "--bots", "alice,bob", "--per-decision", "-1", TOKEN],
        USAGE,
        "--per-decision",
    ),
    (
        ["match", "--game", "crossing", "--bots", "alice,bob", "--option", "novalue", TOKEN],
        USAGE,
        "NAME=VALUE",
    ),
    (["bot", "register", "alice"], REFUSED, "already exists"),
    (["bot", "register", "bad name!"], USAGE, "bot name"),
    (["tournament", "create", "--game", "hart", "--bots", "alice,bob", TOKEN], USAGE, "at least 3"),
    (
        [
            "tournament",
            "create",
            "--game",
            "hart",
            "--bots",
            "alice,bob,carol",
            "--table-size",
            "7",
            TOKEN,
        ],
        USAGE,
        "7",
    ),
    (
        ["tournament", "create", "--game", "hart", "--bots", "alice,bob,nobody", TOKEN],
        NOT_FOUND,
        "nobody",
    ),
    (
        [
            "tournament",
            "create",
            "--game",
            "hart",
            "--bots",
            "alice,bob,carol",
            "--rounds",
            "-1",  # 0 is allowed: it chooses the rounds from the field size
            TOKEN,
        ],
        USAGE,
        "--rounds",
    ),
    (
        [
            "tournament",
            "create",
            "--game",
            "hart",
            "--bots",
            "alice,bob,carol",
            "--admin-token=wrong",
        ],
        REFUSED,
        "wrong admin token",
    ),
    (["tournament", "show", "999"], NOT_FOUND, "no tournament 999"),
    (["tournament", "show", "-3"], USAGE, "tournament_id"),
    (["tournament", "list", "--limit", "0"], USAGE, "--limit"),
    (["leaderboard", "--game", "chess"], USAGE, "chess"),
    (["replay", "999"], NOT_FOUND, "no match 999"),
    (["replay", "{bad}"], USAGE, "not a match record"),
    (["replay", "{missing}"], NOT_FOUND, "neither a record file nor a match id"),
    (["play", "hart", "--seats", "-1"], USAGE, "--seats"),
    (["play", "hart", "--seats", "2"], USAGE, "3-6 seats, not 2"),
    (["play", "hart", "--bots", "random,clever,random"], USAGE, "clever"),
    (["play", "hart", "--option", "variant=nope"], USAGE, "variant"),
    (["play", "nogame"], USAGE, "nogame"),
    (["bot", "run"], USAGE, "token"),
    (["bot", "run", "--token", "not-a-real-token"], REFUSED, "unknown bot token"),
    (["db", "migrate"], UNAVAILABLE, "no database"),
    (["nosuchcommand"], USAGE, "nosuchcommand"),
    (["up", "--port", "0"], USAGE, "--port"),
    (["up", "--port", "{referee_port}", "--data-dir", "{home}"], UNAVAILABLE, "is in use"),
    (["serve", "--per-decision", "0"], USAGE, "--per-decision"),
    (["demo", "--bots", "0"], USAGE, "--bots"),
    (["bot", "test", "{missing}"], NOT_FOUND, "no such file"),
    (["bot", "test"], USAGE, "which bot"),
    (["tournament", "withdraw", "0", "alice", TOKEN], USAGE, "tournament_id"),
    (["tournament", "enter", "999", "alice", TOKEN], NOT_FOUND, "999"),
    (["tournament", "enter", "999", "alice", "--admin-token=wrong"], REFUSED, "admin token"),
    (["schedule", "create", "--name", "n", "--game", "hart", TOKEN], USAGE, "exactly one"),
    (
        [
            "schedule",
            "create",
            "--name",
            "n",
            "--game",
            "hart",
            "--every",
            "6h",
            "--table-size",
            "0",
        ],
        USAGE,
        "--table-size",
    ),
    (["schedule", "pause", "0", TOKEN], USAGE, "schedule_id"),
    (["schedule", "delete", "999", TOKEN], NOT_FOUND, "no schedule 999"),
    (["ladder", "start", "--game", "hart", "--concurrency", "0", TOKEN], USAGE, "--concurrency"),
    (["ladder", "start", "--game", "hart", "--table-size", "9", TOKEN], USAGE, "table size 9"),
    (["ladder", "stop", "--game", "crossing", TOKEN], NOT_FOUND, "no ladder"),
    (["leaderboard", "--game", "hart", "--rating-system", "glicko"], USAGE, "--rating-system"),
]

# Every command that talks to an arena, pointed at a port where nothing listens.
DEAD_CASES: list[list[str]] = [
    ["bot", "register", "zed"],
    ["match", "--game", "crossing", "--bots", "alice,bob", TOKEN],
    ["tournament", "create", "--game", "hart", "--bots", "alice,bob,carol", TOKEN],
    ["tournament", "list"],
    ["tournament", "show", "1"],
    ["tournament", "show", "1", "--follow"],
    ["leaderboard", "--game", "hart"],
    ["tournament", "withdraw", "1", "alice", TOKEN],
    ["schedule", "list"],
    ["schedule", "delete", "1", TOKEN],
    ["ladder", "stop", "--game", "hart", TOKEN],
    ["replay", "1"],
]


def _dead_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def isolated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, referee: RefereeThread
) -> RefereeThread:
    """A fresh ARENA_HOME with no admin token or database, and ARENA_ADDRESS at the referee."""
    for name in ("ARENA_ADMIN_TOKEN", "ARENA_BOT_TOKEN", "ARENA_DATA_DIR", "ARENA_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ARENA_ADDRESS", referee.address)
    (tmp_path / "bad.json").write_text("this is not JSON\n")
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))  # `bot run` configures logging
    monkeypatch.setattr(root, "level", root.level)
    # The referee runs in this process only for the test; its own log lines (say, a refused
    # bot stream) are not the command's output, which `bot run`'s logging setup would mix in.
    monkeypatch.setattr(logging.getLogger("arena.referee"), "propagate", False)
    return referee


def _run(
    argv: list[str],
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    referee: RefereeThread | None = None,
) -> tuple[int, str]:
    port = referee.address.rpartition(":")[2] if referee else ""
    argv = [
        a.replace("{bad}", str(tmp_path / "bad.json"))
        .replace("{missing}", "no-such-file.json")
        .replace("{referee_port}", port)
        .replace("{home}", str(tmp_path / "up-home"))
        for a in argv
    ]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own exit
        code = int(exc.code or 0)
    out, err = capfd.readouterr()
    return code, err + ("\nSTDOUT:" + out if argv[0] == "play" and out else "")


@pytest.mark.parametrize(("argv", "code", "phrase"), LIVE_CASES, ids=lambda v: str(v))
def test_a_mistake_is_one_line_with_its_exit_code(
    argv: list[str],
    code: ExitCode,
    phrase: str,
    isolated: RefereeThread,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    got, err = _run(argv, tmp_path, capfd, isolated)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("arena: "), err
    assert "Traceback" not in err and "AioRpcError" not in err
    assert phrase.lower() in lines[0].lower(), err
    assert got == code, err


@pytest.mark.parametrize("argv", DEAD_CASES, ids=lambda v: " ".join(v[:3]))
def test_nothing_listening_is_one_line_naming_the_address(
    argv: list[str],
    isolated: RefereeThread,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    address = _dead_address()
    got, err = _run([*argv, "--address", address], tmp_path, capfd)
    assert err.splitlines() == [
        f"arena: nothing answers at {address}; start the arena with `arena up`, or pass "
        "--address (or set ARENA_ADDRESS)"
    ]
    assert got == ExitCode.UNAVAILABLE


def test_the_console_script_prints_no_traceback_and_no_grpc_noise(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "ARENA_HOME": str(tmp_path),
        "ARENA_ADDRESS": _dead_address(),
        "ARENA_ADMIN_TOKEN": "x",
    }
    arena = Path(sys.executable).parent / "arena"
    for argv in (["tournament", "show", "1"], ["match", "--game", "hart", "--bots", "a,b,c"]):
        done = subprocess.run([arena, *argv], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == ExitCode.UNAVAILABLE, done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert done.stderr.startswith("arena: nothing answers at"), done.stderr


def test_the_game_header_is_not_printed_before_the_seat_check(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "hart", "--seats", "7"]) == ExitCode.USAGE
    out, err = capfd.readouterr()
    assert out == ""
    assert err.strip() == (
        "arena: hart is played by 3-6 seats, not 7; pass --seats or as many --bots"
    )
