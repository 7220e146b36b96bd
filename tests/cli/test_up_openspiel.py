"""OpenSpiel's games under `arena up`: a Swiss tournament of leduc poker and a ladder of liar's
dice, played by reference bot processes (`arena bot run`), end to end and rated."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_up import stack  # noqa: F401 - the fixture

pytestmark = pytest.mark.integration
pytest.importorskip("pyspiel")
ARENA = [sys.executable, "-m", "arena.cli.main"]


def _arena(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *argv], env=env, capture_output=True, text=True, timeout=60)


def _rated(env: dict[str, str], game: str) -> dict[str, int]:
    """Bot name -> rated games on the game's leaderboard."""
    board = _arena(env, "leaderboard", "--game", game)
    assert board.returncode == 0, board.stderr
    rows = [line.split() for line in board.stdout.splitlines()[1:]]
    return {row[1]: int(row[3]) for row in rows if len(row) == 4 and row[0].isdigit()}


def test_a_leduc_swiss_and_a_liars_dice_ladder_run_under_arena_up(
    stack: tuple[Path, dict[str, str]],  # noqa: F811 - the fixture imported above
) -> None:
    _, env = stack
    strategies = {"solver": "cfr", "r1": "random", "r2": "random", "r3": "random"}
    tokens = {}
    for name in strategies:
        done = _arena(env, "bot", "register", name, "--quiet")
        assert done.returncode == 0, done.stderr
        tokens[name] = done.stdout.strip()
    bots = [
        subprocess.Popen(
            [*ARENA, "bot", "run", "--strategy", strategy, "--report", "none"],
            env={**env, "ARENA_BOT_TOKEN": tokens[name]},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, strategy in strategies.items()
    ]
    try:
        created = _arena(
            env, "tournament", "create", "--game", "openspiel/leduc_poker",
            "--bots", ",".join(strategies), "--table-size", "2", "--rounds", "2", "--quiet",
        )  # fmt: skip
        assert created.returncode == 0, created.stderr
        shown = ""
        for _ in range(180):  # the bots connect, the worker pairs each round
            shown = _arena(env, "tournament", "show", created.stdout.strip()).stdout
            if "finished" in shown.split("\n")[1]:
                break
            time.sleep(1)
        assert "finished" in shown.split("\n")[1], shown
        assert _rated(env, "openspiel/leduc_poker") == dict.fromkeys(strategies, 2)

        started = _arena(
            env, "ladder", "start", "--game", "openspiel/liars_dice", "--table-size", "2"
        )
        assert started.returncode == 0, started.stderr
        rated: dict[str, int] = {}
        for _ in range(120):
            rated = _rated(env, "openspiel/liars_dice")
            if len(rated) == 4 and min(rated.values()) >= 2:
                break
            time.sleep(1)
        assert len(rated) == 4 and min(rated.values()) >= 2, rated
        assert _arena(env, "ladder", "stop", "--game", "openspiel/liars_dice").returncode == 0
    finally:
        for bot in bots:
            bot.terminate()
        for bot in bots:
            bot.wait(timeout=30)
