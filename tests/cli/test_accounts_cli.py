"""`arena account create`, `login` (an owner-only credentials file), `logout`, keys, and the
commands an owner runs on a bot, over a real referee."""

from __future__ import annotations

import io
import stat
from pathlib import Path

import pytest

from arena.cli.errors import ExitCode
from arena.cli.main import main
from tests.cli.conftest import ADMIN, RefereeThread

pytestmark = pytest.mark.integration

PASSWORD = "a long enough password"


def _run(argv: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capfd.readouterr()
    return code, out, err


def test_an_author_logs_in_and_manages_their_bot(
    referee: RefereeThread,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    for name in ("ARENA_ADMIN_TOKEN", "ARENA_API_KEY", "ARENA_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("ARENA_HOME", str(home))
    monkeypatch.setenv("ARENA_ADDRESS", referee.address)
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    code, out, err = _run(["account", "create", "ada", "--password", "--password-stdin"], capfd)
    assert code == 0, err
    assert "arenakey_" in out
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    code, out, err = _run(["login", "ada", "--password-stdin", "--key-name", "laptop"], capfd)
    assert code == 0, err
    credentials = home / "credentials"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert _run(["account", "whoami"], capfd)[1].strip() == "ada (author)"
    code, out, err = _run(["bot", "register", "adabot"], capfd)
    assert code == 0, err
    code, out, err = _run(
        ["bot", "version", "adabot", "--label", "v2", "--notes", "better", "--provisional"],
        capfd,
    )
    assert (code, out.strip()) == (0, "adabot now plays as provisional version v2"), err
    code, out, err = _run(["bot", "versions", "adabot"], capfd)
    assert "owned by ada" in out and "v2" in out and "v1" in out
    code, out, err = _run(["bot", "rotate", "adabot"], capfd)
    assert code == 0 and "arena_" in out, err
    code, out, err = _run(["bot", "stats", "adabot", "--version", "v2"], capfd)
    assert code == 0 and out.startswith("adabot, version v2"), err
    # Another author's bot (alice has no owner) is not ada's to change: one line, no traceback.
    code, out, err = _run(["bot", "retire", "alice"], capfd)
    assert code == ExitCode.REFUSED and len(err.splitlines()) == 1, err
    assert "belongs to another account" in err
    assert _run(["account", "keys", "create", "ci", "--days", "7"], capfd)[0] == 0
    code, out, err = _run(["account", "keys"], capfd)
    assert [line.split()[0] for line in out.splitlines()] == ["first", "laptop", "ci"]
    assert _run(["account", "keys", "revoke", "ci"], capfd)[0] == 0
    code, out, err = _run(["audit"], capfd)
    assert {"CreateBotVersion", "RotateBotToken", "RevokeKey"} <= set(out.split())
    assert PASSWORD not in out
    assert _run(["bot", "retire", "adabot"], capfd)[0] == 0
    code, out, err = _run(["logout"], capfd)
    assert code == 0 and not credentials.exists(), err
    code, out, err = _run(["account", "whoami"], capfd)
    assert code == ExitCode.REFUSED
    assert err.strip() == (
        "arena: not logged in; run `arena login NAME` (or pass --key, or set ARENA_API_KEY)"
    )
    # The admin token still works for account calls, as the first admin account.
    code, out, err = _run(["account", "whoami", "--key", ADMIN], capfd)
    assert out.strip() == "admin (admin)", err
