"""A model of one match between a candidate and a baseline, with seat effects and deal noise.

Each seat's performance is the bot's strength + the seat's effect + the deal's gift to the seat
(shared by every match with the same seed) + the match's own noise; the candidate scores 1 if its
performance beats the baseline's by more than `tie`, 1/2 within it, 0 below. Deal and noise have
variances `deal_share` and 1 - `deal_share`. `bench/sprt.py` calibrates the parameters on real
matches of the reference bots; everything here is computed exactly (by quadrature), not sampled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import permutations

from arena.versiontest.gsprt import expected_score
from arena.versiontest.sets import seat_pairs

GRID = 81
"""Quadrature points over the shared (seat + deal) term of a set."""


@dataclass(frozen=True, slots=True)
class Model:
    """The calibrated parameters of one game."""

    game: str
    seat_effects: tuple[float, ...]
    deal_share: float
    tie: float


def phi(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def match_probs(mean: float, sd: float, tie: float) -> tuple[float, float, float]:
    """(loss, draw, win) when the performance gap is normal(mean, sd)."""
    if sd <= 0:
        return (float(mean < -tie), float(-tie <= mean <= tie), float(mean > tie))
    win = 1 - phi((tie - mean) / sd)
    loss = phi((-tie - mean) / sd)
    return (loss, max(0.0, 1 - win - loss), win)


def _noise_sd(model: Model) -> float:
    return math.sqrt(2 * (1 - model.deal_share))


def pentanomial(model: Model, delta: float, i: int, j: int) -> list[float]:
    """P(set score = k/4), k = 0..4, for a set with the candidate first in seat i, then in j."""
    shift = model.seat_effects[i] - model.seat_effects[j]
    shared_sd = math.sqrt(2 * model.deal_share)
    out = [0.0] * 5
    points = (
        [shift]
        if shared_sd == 0
        else [shift + shared_sd * (-6 + 12 * (k + 0.5) / GRID) for k in range(GRID)]
    )
    weights = [
        math.exp(-0.5 * ((x - shift) / shared_sd) ** 2) if shared_sd else 1.0 for x in points
    ]
    total = sum(weights)
    for x, w in zip(points, weights, strict=True):
        first = match_probs(delta + x, _noise_sd(model), model.tie)
        second = match_probs(delta - x, _noise_sd(model), model.tie)
        for a in range(3):
            for b in range(3):
                out[a + b] += w / total * first[a] * second[b]
    return out


def trinomial(model: Model, delta: float) -> list[float]:
    """P(match score = 0, 1/2, 1) for a match at random seats on a fresh deal."""
    seats = len(model.seat_effects)
    out = [0.0, 0.0, 0.0]
    ordered = list(permutations(range(seats), 2))
    for i, j in ordered:
        probs = match_probs(
            delta + model.seat_effects[i] - model.seat_effects[j], math.sqrt(2), model.tie
        )
        for k in range(3):
            out[k] += probs[k] / len(ordered)
    return out


def paired_sets(model: Model, delta: float) -> list[list[float]]:
    """The pentanomial of each set in the order sets use the seat pairs."""
    return [pentanomial(model, delta, i, j) for i, j in seat_pairs(len(model.seat_effects))]


def mean_score(probs: list[float]) -> float:
    """The mean of a distribution over evenly spaced scores from 0 to 1."""
    step = 1 / (len(probs) - 1)
    return sum(k * step * p for k, p in enumerate(probs))


def variance(probs: list[float]) -> float:
    """The variance of a distribution over evenly spaced scores from 0 to 1."""
    step = 1 / (len(probs) - 1)
    mean = mean_score(probs)
    return sum((k * step - mean) ** 2 * p for k, p in enumerate(probs))


def delta_for(model: Model, elo: float) -> float:
    """The strength gap (in performance units) that gives the candidate `elo` logistic Elo."""
    target = expected_score(elo)
    low, high = -6.0, 6.0
    for _ in range(60):
        mid = (low + high) / 2
        if mean_score(trinomial(model, mid)) < target:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def pair_ratio(model: Model) -> float:
    """Matches a paired design needs per match of an unpaired one at equal strength:
    2 var(set score) / var(match score), averaged over the seat pairs."""
    sets = paired_sets(model, 0.0)
    paired = sum(variance(p) for p in sets) / len(sets)
    return 2 * paired / variance(trinomial(model, 0.0))
