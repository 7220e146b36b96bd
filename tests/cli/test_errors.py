"""Every client command, given the ordinary mistakes of issue 14, prints exactly one line on stderr
(`arena: ...`), no traceback, and exits with the code of the mistake's class.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from arena.cli.errors import ExitCode
from arena.cli.main import main
from arena.ops.tls import ServerTls
from tests.cli.conftest import ADMIN, RefereeThread
from tests.tlscerts import Pki

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
        ["match", "--game", "crossing", "--bots", "alice,bob", TOKEN],
        UNAVAILABLE,
        "not connected: alice, bob; start those bots",
    ),
    (["match", "--game", "crossing", "--bots", "alice,bob", "--wait", "0", TOKEN], USAGE, "--wait"),
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
    (["bot", "run", "--strategy", "mcts", "--game", "openspiel/leduc_poker"], USAGE, "random, cfr"),
    (["db", "migrate"], UNAVAILABLE, "no database"),
    (["nosuchcommand"], USAGE, "nosuchcommand"),
    (["up", "--port", "0"], USAGE, "--port"),
    (["up", "--port", "{referee_port}", "--data-dir", "{home}"], UNAVAILABLE, "is in use"),
    (["serve", "--per-decision", "0"], USAGE, "--per-decision"),
    (["serve", "--port", "{referee_port}"], UNAVAILABLE, "port {referee_port} (referee"),
    (["serve", "--port", "0", "--metrics-port", "{referee_port}"], UNAVAILABLE, "--metrics-port"),
    (["web", "--port", "{referee_port}"], UNAVAILABLE, "port {referee_port} (the web pages)"),
    (["web", "--port", "0", "--metrics-port", "{referee_port}"], UNAVAILABLE, "--metrics-port"),
    (["tournament", "show", "99999"], NOT_FOUND, "tournament list` shows"),
    (["replay", "99999"], NOT_FOUND, "no match 99999; match ids are printed by"),
    (["bot", "stats", "nosuchbot"], NOT_FOUND, "`arena bot register NAME`"),
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
    (["account", "whoami"], REFUSED, "not logged in"),
    (["account", "keys", "revoke"], USAGE, "needs a key name"),
    (["bot", "rotate", "alice", "--key", "arenakey_nope"], REFUSED, "arena login"),
    (["bot", "retire", "nobody", "--key", ADMIN], NOT_FOUND, "unknown bot 'nobody'"),
    (["bot", "version", "alice", "--label", "v 2", "--key", ADMIN], USAGE, "label"),
    (["bot", "stats", "alice", "--version", "v9"], NOT_FOUND, "no version 'v9'"),
    (["account", "create", "x y"], USAGE, "name"),
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
    ["account", "keys", "--key", "k"],
    ["bot", "rotate", "alice", "--key", "k"],
    ["audit", "--key", "k"],
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
    port = isolated.address.rpartition(":")[2]
    assert phrase.replace("{referee_port}", port).lower() in lines[0].lower(), err
    assert got == code, err
    if code == NOT_FOUND:
        assert "; " in lines[0], f"a not-found line says what to do: {err}"


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


def test_a_match_told_to_wait_says_at_once_who_is_missing_and_plays_on(
    isolated: RefereeThread, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    argv = ["match", "--game", "crossing", "--bots", "alice,bob", "--wait", "0.2"]
    code = main([*argv, "--per-decision", "0.05", TOKEN])
    out = capfd.readouterr().out
    assert "not connected yet: alice, bob; the match waits up to 0.2 s for them" in out, out
    assert code == 0 and "(forfeited)" in out, out
    # The stored match's log names its bots, not its seats.
    match_id = out.split(":", 1)[0].removeprefix("match ")
    assert main(["replay", match_id]) == 0
    log = capfd.readouterr().out.splitlines()
    header, body = log[:3], log[3:]
    assert header[1:] == ["  seat 0 played alice", "  seat 1 played bob"], log
    assert any("alice" in line for line in body) and any("bob" in line for line in body), log
    assert not any("seat 0" in line or "seat 1" in line for line in body), log
    # Both seats are stored as absent at the start (a version test would not count this match).
    with psycopg.connect(isolated.database_url) as conn:
        rows = conn.execute(
            "SELECT seat, absent_at_start FROM seats WHERE match_id = %s ORDER BY seat",
            (int(match_id),),
        ).fetchall()
    assert rows == [(0, True), (1, True)], rows


# -- TLS: a referee with a throwaway certificate (tests/tlscerts.py) -------------------------------
@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return Pki.create(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tls_referee(migrated_database_url: str, pki: Pki) -> Iterator[RefereeThread]:
    """A referee that serves TLS only."""
    thread = RefereeThread(migrated_database_url, ServerTls(pki.server_cert, pki.server_key))
    thread.start()
    yield thread
    thread.stop()


GRPC_CORE_LOG = re.compile(r"[IWE]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+\.cc:\d+\]")
# (argv, exit code, the exact line). "{address}" is the TLS referee's; "{ca}", "{other_ca}" PEMs.
TLS_CASES: list[tuple[list[str], ExitCode, str]] = [
    (
        ["tournament", "list"],
        UNAVAILABLE,
        "arena: the referee at {address} speaks TLS and this client does not; pass --tls (and "
        "--tls-ca FILE if a private CA signed its certificate), or set ARENA_TLS=1",
    ),
    (
        ["tournament", "list", "--tls-ca", "{other_ca}"],
        UNAVAILABLE,
        "arena: the referee's certificate at {address} is not trusted (the CA in {other_ca} did "
        "not sign it); pass --tls-ca FILE with the CA that signed it (or set ARENA_TLS_CA)",
    ),
    (
        ["bot", "run", "--token", "t", "--report", "none", "--tls-ca", "{other_ca}"],
        UNAVAILABLE,
        "arena: the referee's certificate at {address} is not trusted (the CA in {other_ca} did "
        "not sign it); pass --tls-ca FILE with the CA that signed it (or set ARENA_TLS_CA)",
    ),
    (
        ["referees", "--tls-ca", "/no/such/ca.pem"],
        USAGE,
        "arena: cannot read the TLS CA /no/such/ca.pem: No such file or directory; check --tls-ca",
    ),
    (
        ["leaderboard", "--game", "hart", "--tls-client-cert", "{ca}"],
        USAGE,
        "arena: a client certificate needs its key and the reverse: pass both --tls-client-cert "
        "and --tls-client-key (or ARENA_TLS_CLIENT_CERT and _KEY); see the command's --help, or "
        "docs/operations.md (TLS)",
    ),
    (
        ["serve", "--tls-cert", "/no/cert.pem", "--tls-key", "{ca}"],
        USAGE,
        "arena: cannot read /no/cert.pem (No such file or directory); check --tls-cert; give "
        "readable PEM files (see docs/operations.md, TLS)",
    ),
    (
        ["serve", "--tls-cert", "{ca}"],
        USAGE,
        "arena: TLS needs both --tls-cert FILE and --tls-key FILE; give readable PEM files (see "
        "docs/operations.md, TLS)",
    ),
]


@pytest.mark.parametrize(("argv", "code", "line"), TLS_CASES, ids=lambda v: str(v))
def test_a_tls_mismatch_is_one_line_saying_what_to_pass(
    argv: list[str],
    code: ExitCode,
    line: str,
    isolated: RefereeThread,
    tls_referee: RefereeThread,
    pki: Pki,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ARENA_TLS", "ARENA_TLS_CA", "ARENA_TLS_CLIENT_CERT", "ARENA_TLS_CLIENT_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARENA_ADDRESS", tls_referee.address)
    places = {
        "{address}": tls_referee.address,
        "{ca}": str(pki.ca),
        "{other_ca}": str(pki.other_ca),
    }
    for key, value in places.items():
        argv = [a.replace(key, value) for a in argv]
        line = line.replace(key, value)
    got, err = _run(argv, tmp_path, capfd)
    # gRPC core, initialised in this process before `arena.cli` set GRPC_VERBOSITY, logs the
    # handshake here; the console script test below shows that a user sees no such line.
    lines = [x for x in err.splitlines() if not GRPC_CORE_LOG.match(x)]
    assert lines == [line], err
    assert got == code


def test_the_right_ca_lists_and_the_console_script_says_one_line_without_it(
    tls_referee: RefereeThread, pki: Pki, tmp_path: Path
) -> None:
    env = {**os.environ, "ARENA_HOME": str(tmp_path), "ARENA_ADDRESS": tls_referee.address}
    for name in ("ARENA_TLS", "ARENA_TLS_CA", "ARENA_TLS_CLIENT_CERT", "ARENA_TLS_CLIENT_KEY"):
        env.pop(name, None)
    arena = Path(sys.executable).parent / "arena"
    listed = ["tournament", "list"]
    ok = subprocess.run(
        [arena, *listed, "--tls-ca", pki.ca], env=env, capture_output=True, text=True, timeout=60
    )
    assert ok.returncode == 0, ok.stderr
    by_env = {**env, "ARENA_TLS": "1", "ARENA_TLS_CA": str(pki.ca)}
    ok = subprocess.run([arena, *listed], env=by_env, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    for argv in ([*listed], [*listed, "--tls-ca", pki.other_ca], [*listed, "--tls"]):
        done = subprocess.run([arena, *argv], env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == ExitCode.UNAVAILABLE, done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr  # no gRPC handshake noise
        assert "TLS" in done.stderr or "not trusted" in done.stderr, done.stderr
