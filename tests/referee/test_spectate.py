"""Spectators see each step's public events, as the match driver's public view shows them."""

from __future__ import annotations

from typing import Any

import pytest

import engines
from arena.referee import spectate
from arena.referee.public_steps import public_view_of
from engines.driver import MatchDriver


@pytest.mark.parametrize("game", ["crossing", "hart"])
def test_the_public_view_of_a_step_carries_its_public_events(game: str) -> None:
    rules = engines.get(game)
    driver: MatchDriver[Any, Any] = MatchDriver(rules, 3, {}, 5)
    shown = 0
    for _ in range(40):
        decision = driver.decision
        if decision is None:
            break
        move = driver.play({seat: driver.default(seat) for seat in decision.seats})
        view = spectate.public_view(rules, move.after, move.events)
        assert view == driver.view(None)
        assert public_view_of(rules, move.after, move.events)() == view
        assert isinstance(view, dict)
        shown += len(view["events"])  # type: ignore[arg-type]
    assert shown > 0, "some step told spectators what happened"
