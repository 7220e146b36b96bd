"""The GSPRT on a candidate's score against a baseline, in logistic Elo, over paired sets.

A sample is one set: the candidate's mean score against the baseline over the set's matches
(1 for ranking ahead of it, 1/2 for sharing its rank, 0 behind). With two matches a set there
are five possible set scores, fishtest's pentanomial; a set of one match gives the trinomial.
The log-likelihood ratio is fishtest's generalised SPRT: the multinomial likelihood of the
observed set scores, maximised under "mean score = s1" against the same under "mean score = s0",
where s = 1 / (1 + 10^(-elo/400)). Why logistic and not normalised Elo is in
docs/versiontests.md: in short, the bounds must mean the same thing to the paired and the
unpaired design, and normalised Elo moves with the variance the pairing removes.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

REGULARISE = 1e-3
"""Added to every empty bin before the maximum likelihood, as fishtest does: a bin never seen is
not proof that it cannot happen (and a run of identical sets would otherwise divide by zero)."""
Z95 = 1.959963984540054


class Verdict(enum.Enum):
    """Where the LLR stands against its bounds."""

    CONTINUE = "continue"
    H0 = "h0"
    """The LLR fell to the lower bound: the candidate is not `elo1` stronger (accept elo0)."""
    H1 = "h1"
    """The LLR rose to the upper bound: the candidate is stronger (accept elo1)."""


@dataclass(frozen=True, slots=True)
class Hypotheses:
    """H0: the candidate is `elo0` stronger; H1: `elo1`; error rates alpha and beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds (false positive)."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds (false negative)."""

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1, got {self.elo0} and {self.elo1}")
        if max(abs(self.elo0), abs(self.elo1)) > 1000:
            raise ValueError("elo0 and elo1 must lie within -1000..1000")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5 (exclusive), got {rate}")

    @property
    def lower(self) -> float:
        """log(beta / (1 - alpha)): at or below it, accept H0."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """log((1 - beta) / alpha): at or above it, accept H1."""
        return math.log((1 - self.beta) / self.alpha)

    def verdict(self, llr: float) -> Verdict:
        """The verdict of a log-likelihood ratio."""
        if llr <= self.lower:
            return Verdict.H0
        if llr >= self.upper:
            return Verdict.H1
        return Verdict.CONTINUE


@dataclass(frozen=True, slots=True)
class Estimate:
    """The candidate's Elo over the baseline from the sets so far, with a 95% interval."""

    sets: int
    score: float
    """The mean set score (the candidate's expected score against the baseline)."""
    elo: float
    low: float
    high: float


def expected_score(elo: float) -> float:
    """The expected score of a player `elo` stronger: 1 / (1 + 10^(-elo/400))."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of(score: float) -> float:
    """The logistic Elo difference of an expected score (clamped to +-1200 at 0 and 1)."""
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / score - 1)


def match_score(candidate_rank: int, baseline_rank: int) -> float:
    """The candidate's score against the baseline in one match (rank 1 is best, ties halved)."""
    if candidate_rank < baseline_rank:
        return 1.0
    return 0.5 if candidate_rank == baseline_rank else 0.0


def set_score(scores: Sequence[float]) -> float:
    """A set's sample: the mean of its matches' scores."""
    if not scores:
        raise ValueError("a set needs at least one match")
    return sum(scores) / len(scores)


def outcomes(matches_per_set: int) -> tuple[float, ...]:
    """Every score a set of that many matches can have: k / (2m) for k = 0..2m."""
    steps = 2 * matches_per_set
    return tuple(k / steps for k in range(steps + 1))


def tally(set_scores: Sequence[float], matches_per_set: int) -> dict[float, int]:
    """How many sets had each possible score (every outcome present, empty ones at 0)."""
    counts = dict.fromkeys(outcomes(matches_per_set), 0)
    steps = 2 * matches_per_set
    for score in set_scores:
        key = round(score * steps) / steps
        if key not in counts or abs(key - score) > 1e-9:
            raise ValueError(f"{score} is not a possible score of a {matches_per_set}-match set")
        counts[key] += 1
    return counts


def llr(counts: Mapping[float, float], hypotheses: Hypotheses) -> float:
    """The GSPRT log-likelihood ratio of H1 over H0 from set-score counts (fishtest's form)."""
    values = sorted(counts)
    weights = [counts[v] if counts[v] > 0 else REGULARISE for v in values]
    total = sum(weights)
    observed = [w / total for w in weights]
    s0 = expected_score(hypotheses.elo0)
    s1 = expected_score(hypotheses.elo1)
    n = sum(max(c, 0.0) for c in counts.values())
    lam0 = _multiplier(values, observed, s0)
    lam1 = _multiplier(values, observed, s1)
    # The constrained maximum puts p_k = observed_k / (1 + lam (v_k - s)) on each outcome.
    return n * sum(
        p * (math.log1p(lam0 * (v - s0)) - math.log1p(lam1 * (v - s1)))
        for v, p in zip(values, observed, strict=True)
    )


def _multiplier(values: Sequence[float], observed: Sequence[float], s: float) -> float:
    """The Lagrange multiplier that makes the maximum-likelihood distribution's mean `s`.

    f(lam) = sum p (v - s) / (1 + lam (v - s)) falls strictly on the interval where every
    denominator is positive, so it has one root there: Newton's method from 0, kept inside a
    shrinking bracket (a step that leaves it bisects instead).
    """
    low = -1 / (max(values) - s)
    high = 1 / (s - min(values))
    lam = 0.0
    for _ in range(100):
        f = slope = 0.0
        for v, p in zip(values, observed, strict=True):
            term = (v - s) / (1 + lam * (v - s))
            f += p * term
            slope -= p * term * term
        if f > 0:
            low = lam
        else:
            high = lam
        step = lam - f / slope if slope < 0 else (low + high) / 2
        if not low < step < high:
            step = (low + high) / 2
        if abs(step - lam) < 1e-13:
            return step
        lam = step
    return lam


def llr_normal(n: int, mean: float, variance: float, hypotheses: Hypotheses) -> float:
    """The closed-form approximation N (s1 - s0) (2 mean - s0 - s1) / (2 variance).

    Van den Bergh's normal approximation of the same GSPRT; the simulation screens with it and
    computes `llr` near the bounds. Zero variance counts as the regularised floor.
    """
    s0 = expected_score(hypotheses.elo0)
    s1 = expected_score(hypotheses.elo1)
    return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * max(variance, 1e-6))


def t95(df: float) -> float:
    """Student's t two-sided 95% quantile (Cornish-Fisher expansion; within 0.5% from 3 df)."""
    z = Z95
    df = max(df, 1.0)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def estimate(counts: Mapping[float, float]) -> Estimate:
    """The mean set score as Elo, with a 95% interval from the sets' own variance (Student's t,
    so a short test's interval is not narrower than its few sets allow)."""
    n = sum(counts.values())
    if n <= 0:
        return Estimate(sets=0, score=0.5, elo=0.0, low=-math.inf, high=math.inf)
    mean = sum(v * c for v, c in counts.items()) / n
    variance = sum(c * (v - mean) ** 2 for v, c in counts.items()) / max(n - 1, 1)
    half = t95(n - 1) * math.sqrt(variance / n) if n > 1 else 0.0
    return Estimate(
        sets=int(n),
        score=mean,
        elo=elo_of(mean),
        low=elo_of(mean - half),
        high=elo_of(mean + half),
    )
