"""Seeded 4-seat matches of the Double Crossing heuristic against three random bots."""

from __future__ import annotations

from dataclasses import dataclass

from arena.sdk.bots.base import RandomStrategy, Strategy
from arena.sdk.bots.crossing import CrossingHeuristic
from arena.sdk.local import play_local

OPTIONS = {"round_cap": 100}
"""100 rounds of 4 seats: the 400 turns these figures were first measured with."""


@dataclass(frozen=True, slots=True)
class WinRate:
    """How the heuristic fared."""

    games: int
    wins: int
    """Games where the heuristic alone ranked first."""
    at_central: int
    """Wins by returning to Central Station (the rest came at the turn cap)."""
    bad_answers: int

    @property
    def rate(self) -> float:
        return self.wins / self.games


def heuristic_win_rate(games: int, first_seed: int = 0) -> WinRate:
    """Play `games` matches, the heuristic's seat rotating 0..3, seed i for game i."""
    wins = central = bad = 0
    for game in range(games):
        seat = game % 4
        bots: list[Strategy] = [RandomStrategy() for _ in range(4)]
        bots[seat] = CrossingHeuristic()
        match = play_local("crossing", bots, seed=first_seed + game, options=OPTIONS)
        ranks = match.outcome.ranks
        if ranks[seat] == 1 and ranks.count(1) == 1:
            wins += 1
            central += match.final.winner == seat
        bad += len(match.bad_answers)
    return WinRate(games, wins, central, bad)
