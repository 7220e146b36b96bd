"""`arena games` lists OpenSpiel's curated games; `arena play openspiel/...` plays one, and says
in one line what to install when the wheel is missing."""

from __future__ import annotations

import sys

import pytest

import engines.openspiel
from arena.cli.main import main
from engines.registry import openspiel_names


def test_games_lists_the_curated_openspiel_games(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for name in openspiel_names():
        assert f"\n{name} " in out
    assert "unchecked=true" in out


def test_play_plays_an_openspiel_game(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    assert main(["play", "openspiel/kuhn_poker", "--seed", "3"]) == 0
    assert "Final ranking" in capsys.readouterr().out


def test_without_the_wheel_play_says_what_to_install_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines.openspiel, "_rules", {})
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` now fails
    monkeypatch.delitem(sys.modules, "engines.openspiel.adapter", raising=False)
    code = main(["play", "openspiel/kuhn_poker"])
    err = capsys.readouterr().err
    assert code != 0
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "pip install -e '.[openspiel]'" in err
    assert main(["games"]) == 0
    assert "open-spiel wheel" in capsys.readouterr().out
