"""Simulated version tests: draw set scores from a model and run the GSPRT until it stops.

Each step checks the closed-form LLR first and computes the exact one (the referee's statistic)
whenever the closed form is within `MARGIN` of a bound, or for the first `EXACT_BELOW` samples
where the two can differ more; the exact LLR alone decides.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.versiontest.gsprt import Hypotheses, Verdict, llr, llr_normal, outcomes

MARGIN = 0.5
EXACT_BELOW = 200


@dataclass(frozen=True, slots=True)
class Run:
    """One simulated test: its verdict and how many samples (sets or matches) it used."""

    verdict: Verdict
    samples: int


def cumulative(probs: Sequence[float]) -> list[float]:
    """Running sums for drawing with `bisect`."""
    return list(itertools.accumulate(probs))


def run_test(
    dists: Sequence[Sequence[float]], hypotheses: Hypotheses, rng: random.Random, cap: int
) -> Run:
    """One GSPRT over samples drawn from `dists` in turn (one per sample, cycled), up to `cap`."""
    values = outcomes((len(dists[0]) - 1) // 2)
    tables = [cumulative(d) for d in dists]
    counts = [0] * len(values)
    n, total, squares = 0, 0.0, 0.0
    lower, upper = hypotheses.lower, hypotheses.upper
    while n < cap:
        table = tables[n % len(tables)]
        k = min(bisect.bisect_right(table, rng.random() * table[-1]), len(values) - 1)
        counts[k] += 1
        n += 1
        total += values[k]
        squares += values[k] * values[k]
        mean = total / n
        approx = llr_normal(n, mean, squares / n - mean * mean, hypotheses)
        if n >= EXACT_BELOW and lower + MARGIN < approx < upper - MARGIN:
            continue
        verdict = hypotheses.verdict(llr(dict(zip(values, counts, strict=True)), hypotheses))
        if verdict is not Verdict.CONTINUE:
            return Run(verdict, n)
    return Run(Verdict.CONTINUE, n)


@dataclass(frozen=True, slots=True)
class Summary:
    """Many runs at one true Elo: how often each verdict came, and the mean sample number."""

    runs: int
    h0: int
    h1: int
    capped: int
    mean_samples: float


def summarise(runs: Sequence[Run]) -> Summary:
    """Count the verdicts and average the samples of `runs`."""
    return Summary(
        runs=len(runs),
        h0=sum(r.verdict is Verdict.H0 for r in runs),
        h1=sum(r.verdict is Verdict.H1 for r in runs),
        capped=sum(r.verdict is Verdict.CONTINUE for r in runs),
        mean_samples=sum(r.samples for r in runs) / len(runs),
    )


def binomial_band(rate: float, runs: int) -> tuple[float, float]:
    """The 95% band of an observed rate when the true rate is `rate` over `runs` trials."""
    half = 1.959963984540054 * math.sqrt(rate * (1 - rate) / runs)
    return (rate - half, rate + half)


def fixed_sample(variance: float, hypotheses: Hypotheses, s0: float, s1: float) -> float:
    """Samples a fixed-size one-sided z-test needs for the same alpha and beta."""
    z = _z(1 - hypotheses.alpha) + _z(1 - hypotheses.beta)
    return (z * math.sqrt(variance) / (s1 - s0)) ** 2


def _z(p: float) -> float:
    low, high = -10.0, 10.0
    for _ in range(80):
        mid = (low + high) / 2
        if 0.5 * math.erfc(-mid / math.sqrt(2)) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2
