"""`arena bot test`: a bot program that answers badly on purpose gets each bad answer reported
with its match, decision number and label, and the command exits non-zero.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.errors import ExitCode

pytestmark = pytest.mark.integration

MISBEHAVING = '''
import os, time
from arena.sdk import Bot

class Clumsy(Bot):
    """Answers its first request with an action of no game, its second after the deadline."""

    seen = 0

    def decide(self, turn):
        Clumsy.seen += 1
        if Clumsy.seen == 1:
            return {"type": "no-such-action"}
        if Clumsy.seen == 2:
            time.sleep(5.0)  # per decision is 2.5 s and there is no bank: certainly late
        return turn.legal[0] if turn.legal is not None else turn.choices()[0]

Clumsy().run(os.environ["ARENA_ADDRESS"], os.environ["ARENA_BOT_TOKEN"])
'''


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "bot", "test", *args],
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_bad_and_late_answers_are_reported_with_their_decision(tmp_path: Path) -> None:
    bot = tmp_path / "clumsy.py"
    bot.write_text(MISBEHAVING)
    # 2.5 s per decision: a loaded machine must not make the bot's prompt answers late.
    done = _arena(str(bot), "--matches", "1", "--per-decision", "2.5", "--opponents", "random")
    assert done.returncode == ExitCode.FAILED, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    faults = [line for line in lines if line.startswith("  match 1 decision ")]
    assert len(faults) == 2, lines
    # Each names its decision and label, why, and the default played instead, in JSON.
    assert re.match(r"  match 1 decision \d+ \(\w+\): .*'no-such-action'", faults[0]), faults
    assert re.search(r"no answer to decision \d+ within 2.500s", faults[1]), faults
    assert all('played instead: {"type": ' in line for line in faults), faults
    assert lines[-1].startswith("1 matches: ") and "1 late, 1 illegal or invalid" in lines[-1]


def test_a_bot_that_never_connects_is_one_clear_line(tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text("raise SystemExit('cannot find my config')\n")
    done = _arena(str(bot), "--matches", "1")
    assert done.returncode == ExitCode.FAILED
    assert done.stderr.splitlines() == [
        "arena: your bot exited with status 1 before connecting: cannot find my config; it must "
        "connect to ARENA_ADDRESS with the token in ARENA_BOT_TOKEN"
    ]


def test_a_program_that_cannot_start_is_one_clear_line() -> None:
    done = _arena("--cmd", "no-such-program-xyz --flag")
    assert done.returncode == ExitCode.NOT_FOUND
    assert done.stderr.splitlines() == [
        "arena: cannot start no-such-program-xyz --flag: No such file or directory; "
        "check the command (is its interpreter installed and on PATH?)"
    ]


def test_the_example_bot_plays_cleanly() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "python-bot" / "my_bot.py"
    done = _arena(str(example), "--matches", "2", "--opponents", "random")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 matches: " in done.stdout and "0 bad answers" in done.stdout


def test_a_bot_is_tried_on_an_openspiel_game_against_a_reference_solver() -> None:
    pytest.importorskip("pyspiel")
    example = Path(__file__).resolve().parents[2] / "examples" / "python-bot" / "my_bot.py"
    done = _arena(
        str(example), "--game", "openspiel/kuhn_poker", "--matches", "2", "--opponents", "cfr"
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "2 openspiel/kuhn_poker matches, 2 seats" in done.stdout and "against cfr-1" in done.stdout
    )
    assert (
        done.stdout.splitlines()[-1].startswith("2 matches: ") and " 0 bad answers" in done.stdout
    )
