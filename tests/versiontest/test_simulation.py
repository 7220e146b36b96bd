"""Simulated version tests land within the binomial band of their stated error rates (seeded)."""

from __future__ import annotations

import random

import pytest

from arena.versiontest.gsprt import Hypotheses, expected_score
from tests.versiontest.model import (
    Model,
    delta_for,
    mean_score,
    pair_ratio,
    paired_sets,
    trinomial,
)
from tests.versiontest.simulate import binomial_band, run_test, summarise

HART = Model("hart", (0.107, 0.0, -0.080, -0.027), deal_share=0.26, tie=0.012)
"""Fitted by bench/sprt.py on 150 real Hart sets of the reference bots."""
TESTS = 400


@pytest.mark.parametrize("paired", [True, False])
def test_error_rates_land_in_their_band(paired: bool) -> None:
    hyp = Hypotheses(0, 40, alpha=0.05, beta=0.05)
    rng = random.Random(29)
    band = binomial_band(0.05, TESTS)
    for elo, wrong in ((hyp.elo0, "h1"), (hyp.elo1, "h0")):
        delta = delta_for(HART, elo)
        dists = paired_sets(HART, delta) if paired else [trinomial(HART, delta)]
        summary = summarise([run_test(dists, hyp, rng, 10**6) for _ in range(TESTS)])
        assert summary.capped == 0
        assert band[0] <= getattr(summary, wrong) / TESTS <= band[1], (elo, summary)


def test_the_model_gives_the_asked_elo_in_both_designs() -> None:
    delta = delta_for(HART, 25)
    assert mean_score(trinomial(HART, delta)) == pytest.approx(expected_score(25), abs=1e-9)
    sets = paired_sets(HART, delta)
    assert sum(mean_score(p) for p in sets) / len(sets) == pytest.approx(
        expected_score(25), abs=1e-6
    )


def test_pairing_removes_the_deal_and_seat_share_of_the_variance() -> None:
    assert pair_ratio(Model("x", (0.0, 0.0, 0.0), 0.0, 0.1)) == pytest.approx(1.0, abs=1e-3)
    assert pair_ratio(HART) < pair_ratio(Model("hart", HART.seat_effects, 0.0, HART.tie)) < 1.0
    assert pair_ratio(Model("x", (0.0, 0.0, 0.0), 0.9, 0.1)) < 0.3
