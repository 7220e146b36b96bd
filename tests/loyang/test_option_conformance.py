"""The conformance checks with the rules options that no preset turns on."""

from __future__ import annotations

from typing import Any

import pytest

from engines import OptionsError
from engines.driver import MatchDriver
from tests.engines.conformance import Tally, play_checked
from tests.loyang.support import RULES


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        (3, {"scoring_timing": "end_of_round"}),
        (2, {"shop_stock_mode": "strict", "voluntary_loans": True}),
        (4, {"regular_max_per_round": 1}),
        (4, {"paired": True, "scoring_timing": "end_of_round"}),
        (1, {"solo_discard_row": 2}),
        (2, {"two_player_rule": "off", "beginner": True}),
    ],
)
def test_random_play_with_options(seats: int, options: dict[str, Any]) -> None:
    tally = Tally()
    for seed in range(4):
        play_checked(RULES, seats, seed, options, deep=seed < 2, tally=tally)
    assert tally.scrambles_that_changed_state > 0


@pytest.mark.parametrize(
    ("seats", "options", "message"),
    [
        (2, {"solo": True}, "solo variant is for 1 seat"),
        (1, {"beginner": True}, "needs 2-4 seats"),
        (3, {"paired": True}, "4-player variant"),
        (3, {"two_player_rule": "on"}, "needs 2 seats"),
        (2, {"scoring_timing": "never"}, "must be one of"),
    ],
)
def test_options_that_do_not_fit_are_refused(
    seats: int, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionsError, match=message):
        MatchDriver(RULES, seats, options, 0)


def test_every_preset_fits_some_seat_count() -> None:
    for name, options in RULES.presets.items():
        fits = []
        for seats in RULES.seat_counts:
            try:
                MatchDriver(RULES, seats, options, 0)
                fits.append(seats)
            except OptionsError:
                pass
        assert fits, name
