"""A bot built from the last released protocol's stubs (tests/fixtures/stubs-v1/, kept as they were
generated at that release) plays every game against today's referee without a bad answer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

V1_BOT = Path(__file__).resolve().parent / "v1_bot.py"


@pytest.mark.parametrize("game", ["hart", "crossing", "loyang"])
def test_a_bot_on_the_released_stubs_plays_todays_referee(game: str, tmp_path: Path) -> None:
    trial = [sys.executable, "-m", "arena.cli.main", "bot", "test", "--matches", "1"]
    done = subprocess.run(
        [*trial, "--game", game, "--cmd", f"{sys.executable} {V1_BOT}", "--opponents", "random"],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 matches: " in done.stdout and " 0 bad answers" in done.stdout, done.stdout
