"""Each golden playthrough still plays out exactly as recorded."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

import engines
from tests.golden import GOLDEN_DIR, golden_files, is_scripted, regenerate


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_replay(path: Path) -> None:
    expected = path.read_text()
    try:
        actual = regenerate(path)
    except ValueError as exc:  # a script line no longer fits the match: show which
        pytest.fail(f"{path.relative_to(GOLDEN_DIR)}: {exc}")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "recorded", "now", lineterm="", n=1
        )
        shown = "\n".join(list(diff)[:60])
        pytest.fail(
            f"{path.relative_to(GOLDEN_DIR)} changed (run `make goldens` if intended):\n{shown}"
        )


def test_every_game_has_goldens() -> None:
    games_with_goldens = {p.parent.name for p in golden_files()}
    assert set(engines.names()) <= games_with_goldens


@pytest.mark.parametrize("game", engines.names())
def test_every_game_has_scripted_and_full_goldens(game: str) -> None:
    kinds = {is_scripted(p) for p in golden_files([game])}
    assert kinds == {True, False}, f"{game} needs a scripted and a full golden; has {kinds}"
