"""The GSPRT statistic and the paired-set seating."""

from __future__ import annotations

import math

import pytest

from arena.versiontest.gsprt import (
    Hypotheses,
    Verdict,
    elo_of,
    estimate,
    expected_score,
    llr,
    llr_normal,
    match_score,
    set_score,
    t95,
    tally,
)
from arena.versiontest.sets import BASELINE, CANDIDATE, plan_set, seat_pairs, set_seed


def test_bounds_are_walds() -> None:
    hyp = Hypotheses(0, 5, alpha=0.05, beta=0.1)
    assert hyp.lower == pytest.approx(math.log(0.1 / 0.95))
    assert hyp.upper == pytest.approx(math.log(0.9 / 0.05))
    assert hyp.verdict(hyp.lower) is Verdict.H0
    assert hyp.verdict(hyp.upper + 0.01) is Verdict.H1
    assert hyp.verdict(0.0) is Verdict.CONTINUE


@pytest.mark.parametrize(
    ("elo0", "elo1", "alpha", "beta"), [(5, 0, 0.05, 0.05), (0, 5, 0.0, 0.05), (0, 5, 0.05, 0.5)]
)
def test_bad_hypotheses_are_refused(elo0: float, elo1: float, alpha: float, beta: float) -> None:
    with pytest.raises(ValueError):
        Hypotheses(elo0, elo1, alpha, beta)


def test_elo_and_score_invert() -> None:
    for elo in (-200.0, -5.0, 0.0, 7.5, 300.0):
        assert elo_of(expected_score(elo)) == pytest.approx(elo)
    assert expected_score(0) == 0.5


def test_match_and_set_scores() -> None:
    assert match_score(1, 2) == 1.0
    assert match_score(3, 3) == 0.5
    assert match_score(4, 1) == 0.0
    assert set_score([1.0, 0.5]) == 0.75
    assert tally([0.75, 0.75, 0.0], 2) == {0.0: 1, 0.25: 0, 0.5: 0, 0.75: 2, 1.0: 0}
    with pytest.raises(ValueError):
        tally([0.3], 2)


def test_llr_is_zero_halfway_and_rises_with_the_score() -> None:
    hyp = Hypotheses(-10, 10)
    even = {0.0: 10, 0.25: 40, 0.5: 100, 0.75: 40, 1.0: 10}
    assert llr(even, hyp) == pytest.approx(0.0, abs=1e-9)
    better = {**even, 1.0: 20}
    worse = {**even, 0.0: 20}
    assert llr(worse, hyp) < 0 < llr(better, hyp)
    doubled = {k: 2 * v for k, v in better.items()}
    assert llr(doubled, hyp) == pytest.approx(2 * llr(better, hyp), rel=1e-6)


def test_llr_agrees_with_its_normal_approximation_for_small_spans() -> None:
    hyp = Hypotheses(0, 5)
    counts = {0.0: 30, 0.25: 220, 0.5: 500, 0.75: 240, 1.0: 35}
    n = sum(counts.values())
    mean = sum(k * v for k, v in counts.items()) / n
    var = sum(v * (k - mean) ** 2 for k, v in counts.items()) / n
    assert llr(counts, hyp) == pytest.approx(llr_normal(n, mean, var, hyp), abs=0.02)


def test_identical_sets_are_evidence_for_h0() -> None:
    # Two copies of one deterministic program draw every set: no sign of a 5 Elo gain.
    hyp = Hypotheses(0, 5)
    assert hyp.verdict(llr(tally([0.5] * 300, 2), hyp)) is Verdict.H0


def test_estimate_interval_contains_the_estimate() -> None:
    counts = {0.0: 10, 0.25: 100, 0.5: 300, 0.75: 120, 1.0: 12}
    est = estimate(counts)
    assert est.sets == 542
    assert est.low < est.elo < est.high
    assert elo_of(est.score) == est.elo
    assert estimate({0.5: 0}).sets == 0


def test_a_set_swaps_candidate_and_baseline_beside_the_same_fillers() -> None:
    for seats in range(2, 7):
        pairs = set()
        for set_no in range(3 * len(seat_pairs(seats))):
            plan = plan_set(set_no, seats, ["f1", "f2"])
            first, second = plan.lineups
            i, j = plan.seats
            assert (first[i], first[j]) == (CANDIDATE, BASELINE)
            assert (second[i], second[j]) == (BASELINE, CANDIDATE)
            assert [s for k, s in enumerate(first) if k not in (i, j)] == [
                s for k, s in enumerate(second) if k not in (i, j)
            ]
            assert plan.seat_of(1, CANDIDATE) == j
            pairs.add(plan.seats)
        assert pairs == set(seat_pairs(seats))


def test_fillers_rotate_between_rounds_of_seat_pairs() -> None:
    first = plan_set(0, 4, ["a", "b"]).lineups[0]
    later = plan_set(len(seat_pairs(4)), 4, ["a", "b"]).lineups[0]
    assert first != later


def test_bad_seating_is_refused() -> None:
    with pytest.raises(ValueError, match="filler"):
        plan_set(0, 4, [])
    with pytest.raises(ValueError, match="2 seats"):
        plan_set(0, 1, ["a"])


def test_set_seeds_are_stable_and_a_replay_gets_its_own() -> None:
    assert set_seed(5, "salt", 3) == set_seed(5, "salt", 3)
    assert set_seed(5, "salt", 3) != set_seed(5, "salt", 4)
    assert set_seed(5, "salt", 3, attempt=2) != set_seed(5, "salt", 3)
    assert 0 <= set_seed(5, "salt", 3) < 2**62


def test_a_short_tests_interval_uses_students_t() -> None:
    assert t95(5) == pytest.approx(2.571, abs=0.01)
    assert t95(30) == pytest.approx(2.042, abs=0.005)
    few = estimate({0.5: 3, 0.75: 3})
    mean, sd = 0.625, (3 * 0.125**2 * 2 / 5) ** 0.5
    assert few.high == pytest.approx(elo_of(mean + 2.571 * sd / 6**0.5), abs=0.5)
