"""Every registered game, every seat count, every preset: random legal play over many seeds."""

from __future__ import annotations

import os
from typing import Any

import pytest

import engines
from engines import OptionsError
from engines.driver import MatchDriver
from tests.engines.conformance import Tally, play_checked

SEEDS = int(os.environ.get("ARENA_CONFORMANCE_SEEDS", "200"))
"""Seeds per (game, seat count, preset). The first DEEP_SEEDS get the expensive checks."""
DEEP_SEEDS = int(os.environ.get("ARENA_CONFORMANCE_DEEP_SEEDS", "20"))
PRESET_SEEDS = int(os.environ.get("ARENA_CONFORMANCE_PRESET_SEEDS", "40"))
"""Seeds per (game, seat count) for each non-default preset (variants)."""
FULL_LENGTH_SEEDS = 2
"""Seeds after the deep ones that play without the game's `conformance_options`."""


def _cases() -> list[Any]:
    cases = []
    for name in engines.names():
        rules = engines.get(name)
        presets: dict[str, Any] = {"default": {}, **dict(rules.presets)}
        for preset, options in presets.items():
            for seats in rules.seat_counts:
                if preset == "default" or _applies(rules, seats, options):
                    cases.append(
                        pytest.param(name, seats, preset, options, id=f"{name}-{seats}-{preset}")
                    )
    return cases


def _applies(rules: Any, seats: int, options: dict[str, Any]) -> bool:
    """Whether a variant preset is playable at this seat count (solo is for one seat, ...)."""
    try:
        MatchDriver(rules, seats, options, 0)
    except OptionsError:
        return False
    return True


@pytest.mark.parametrize(("game", "seats", "preset", "options"), _cases())
def test_random_play(game: str, seats: int, preset: str, options: dict[str, Any]) -> None:
    rules = engines.get(game)
    tally = Tally()
    finals = []
    short = {**options, **rules.conformance_options}
    for seed in range(SEEDS if preset == "default" else PRESET_SEEDS):
        full = DEEP_SEEDS <= seed < DEEP_SEEDS + FULL_LENGTH_SEEDS
        played = options if full else short
        record, final = play_checked(
            rules, seats, seed, played, deep=seed < DEEP_SEEDS, tally=tally
        )
        finals.append(rules.outcome(final))
        if seed < 3:  # the same seed and moves give the same match
            again, final_again = play_checked(rules, seats, seed, played, deep=False)
            assert again == record and final_again == final
    assert tally.decisions > SEEDS, "matches this short test nothing"
    assert tally.scrambles_that_changed_state > 0, "scramble() never hid anything"
    if seats > 1:
        assert len({o.ranks for o in finals if o is not None}) > 1, "every seed gave the same ranks"
