"""Calibrate the match model on real paired sets of the reference bots, played in process.

Candidate and baseline are two copies of the game's heuristic, each playing a uniformly random
legal action on a share `NOISE` of its decisions from a random stream of its own: equally strong,
different programs. The fillers are the heuristic and the random bot. From the sets we read the
tie rate, the seat effects and how much of a match's outcome the seed and seats decide (the
variance the pairing removes); the model's parameters are fitted to reproduce all three.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.sdk.bots.base import RandomStrategy, Strategy, Turn, strategy
from arena.sdk.local import play_local
from arena.versiontest.gsprt import match_score
from arena.versiontest.sets import BASELINE, CANDIDATE, plan_set, set_seed
from engines import HashRng, Rng
from engines.api import Json
from tests.versiontest.model import Model, match_probs, pair_ratio, phi

NOISE = 0.05
FILLERS = ("heuristic", "random")


class Noisy(Strategy):
    """The heuristic, with a share of random moves drawn from a stream keyed by its own name."""

    name = "noisy"

    def __init__(self, game: str, key: str, seed: int, noise: float = NOISE) -> None:
        self.inner = strategy(game, "heuristic")
        self.key = f"{key}:{seed}"
        self.noise = noise

    def decide(self, turn: Turn, rng: Rng) -> Json:
        own = HashRng(0, f"{self.key}:{turn.decision}:{turn.seat}")
        if own.below(1000) < self.noise * 1000:
            return RandomStrategy().decide(turn, own)
        return self.inner.decide(turn, own)


@dataclass(frozen=True, slots=True)
class PlayedSet:
    """The candidate's score in each match of one real set, and the set's seats."""

    seats: tuple[int, int]
    scores: tuple[float, float]


def play_sets(game: str, sets: int, seats: int = 4, noise: float = NOISE) -> list[PlayedSet]:
    """Play `sets` real paired sets of two equally strong noisy heuristics."""
    played = []
    for set_no in range(sets):
        plan = plan_set(set_no, seats, FILLERS)
        seed = set_seed(7, "calibration", set_no)
        scores = []
        for lineup in plan.lineups:
            bots: list[Strategy] = []
            for who in lineup:
                if who in (CANDIDATE, BASELINE):
                    bots.append(Noisy(game, who, seed, noise))
                else:
                    bots.append(strategy(game, who))
            ranks = play_local(game, bots, seed=seed).outcome.ranks
            scores.append(
                match_score(ranks[lineup.index(CANDIDATE)], ranks[lineup.index(BASELINE)])
            )
        played.append(PlayedSet(plan.seats, (scores[0], scores[1])))
    return played


@dataclass(frozen=True, slots=True)
class Observed:
    """What the real sets showed."""

    sets: int
    tie_rate: float
    ratio: float
    """2 var(set score) / var(match score): the paired design's matches per unpaired match."""
    seat_scores: dict[tuple[int, int], float]
    """Per seat pair (i, j), the mean score of the bot in seat i against the one in seat j."""


def observe(played: Sequence[PlayedSet]) -> Observed:
    """Summarise real sets."""
    matches = [s for p in played for s in p.scores]
    means = [sum(p.scores) / 2 for p in played]
    pair_scores: dict[tuple[int, int], list[float]] = {}
    for p in played:
        pair_scores.setdefault(p.seats, []).append((p.scores[0] + 1 - p.scores[1]) / 2)
    return Observed(
        sets=len(played),
        tie_rate=sum(s == 0.5 for s in matches) / len(matches),
        ratio=2 * _variance(means) / max(_variance(matches), 1e-9),
        seat_scores={k: sum(v) / len(v) for k, v in pair_scores.items()},
    )


def fit(game: str, seats: int, observed: Observed) -> Model:
    """The model that reproduces the observed seat effects, tie rate and pairing ratio."""
    gaps = {
        (i, j): math.sqrt(2) * _probit(min(max(m, 0.02), 0.98))
        for (i, j), m in observed.seat_scores.items()
    }
    effects = []
    for i in range(seats):
        total = sum(g for (a, b), g in gaps.items() if a == i) - sum(
            g for (a, b), g in gaps.items() if b == i
        )
        effects.append(total / seats)
    tie = _solve(lambda t: _tie_rate(effects, t), observed.tie_rate, 0.0, 3.0, rising=True)
    base = Model(game, tuple(effects), 0.0, tie)

    def ratio(share: float) -> float:
        return pair_ratio(Model(game, tuple(effects), share, tie))

    share = _solve(ratio, observed.ratio, 0.0, 0.98, rising=False)
    return Model(base.game, base.seat_effects, share, tie)


def _tie_rate(effects: Sequence[float], tie: float) -> float:
    rates = [
        match_probs(effects[i] - effects[j], math.sqrt(2), tie)[1]
        for i in range(len(effects))
        for j in range(len(effects))
        if i != j
    ]
    return sum(rates) / len(rates)


def _solve(func: object, target: float, low: float, high: float, rising: bool) -> float:
    """Bisect a monotone function for `target`, clamped to [low, high]."""
    assert callable(func)
    for _ in range(40):
        mid = (low + high) / 2
        if (func(mid) < target) == rising:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _probit(p: float) -> float:
    low, high = -10.0, 10.0
    for _ in range(80):
        mid = (low + high) / 2
        if phi(mid) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _variance(xs: Sequence[float]) -> float:
    mean = sum(xs) / len(xs)
    return sum((x - mean) ** 2 for x in xs) / len(xs)
