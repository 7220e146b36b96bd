"""Benchmark: how long heuristic games of Double Crossing and Loyang last, and how they end.

Every seat plays the game's heuristic bot; game i uses seed i. Per game and seat count it prints
how many games ended by the win rule (Crossing: a seat with enough contracts back at Central
Station; Loyang: the ninth round played out) rather than at the cap, the game-length
distribution (Crossing: rounds, every seat's regular turn once; Loyang: decisions), and the CPU
time. The first run is the round cap of the defaults; `--cap` replays Crossing with another cap.

    .venv/bin/python bench/game_lengths.py [--games 200] [--seats 1,2,3,4,5,6] [--game crossing]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.sdk.bots.base import Strategy
from arena.sdk.bots.crossing import CrossingHeuristic
from arena.sdk.bots.loyang import LoyangHeuristic
from arena.sdk.local import play_local
from engines.api import Termination
from engines.registry import get as game_rules

GOALS = {("crossing", 4): 0.9, ("crossing", 6): 0.8}
"""Issue 13's goal: the share of heuristic games that end by the win rule."""


@dataclass(frozen=True, slots=True)
class Lengths:
    """The games of one game and seat count."""

    game: str
    seats: int
    lengths: tuple[int, ...]
    """Per game: rounds (Crossing) or decisions (Loyang)."""
    by_win: int
    """Games ended by the win rule, not at the cap."""
    seconds: float
    ratings: tuple[str, ...] = ()
    """Loyang solo: the rating of each game."""

    @property
    def rate(self) -> float:
        """The share of games ended by the win rule."""
        return self.by_win / len(self.lengths)


def _bots(game: str, seats: int) -> list[Strategy]:
    if game == "crossing":
        return [CrossingHeuristic() for _ in range(seats)]
    return [LoyangHeuristic() for _ in range(seats)]


def measure(game: str, seats: int, games: int, options: dict[str, object]) -> Lengths:
    """Play `games` heuristic games of `game` at `seats` seats."""
    lengths: list[int] = []
    ratings: list[str] = []
    by_win = 0
    started = time.process_time()
    for seed in range(games):
        match = play_local(game, _bots(game, seats), seed=seed, options=options)
        final = match.final
        if game == "crossing":
            lengths.append(-(-final.regular_turns // seats))
            by_win += final.termination is Termination.COMPLETED and final.winner is not None
        else:
            lengths.append(len(match.record.moves))
            by_win += final.round >= 9 and match.outcome.termination is Termination.COMPLETED
            ratings += [match.outcome.rating] if match.outcome.rating is not None else []
    seconds = time.process_time() - started
    return Lengths(game, seats, tuple(lengths), by_win, seconds, tuple(ratings))


def report(result: Lengths) -> str:
    """One line of figures."""
    ls = sorted(result.lengths)
    unit = "rounds" if result.game == "crossing" else "decisions"
    q = statistics.quantiles(ls, n=10, method="inclusive") if len(ls) > 1 else [ls[0]] * 9
    goal = GOALS.get((result.game, result.seats))
    verdict = (
        "" if goal is None else f" (goal {goal:.0%}: {'met' if result.rate >= goal else 'MISSED'})"
    )
    return (
        f"{result.game} {result.seats} seats: {result.by_win}/{len(ls)} = {result.rate:.0%} by the "
        f"win rule{verdict}; {unit} min {ls[0]} p10 {q[0]:.0f} median {statistics.median(ls):.0f} "
        f"p90 {q[8]:.0f} max {ls[-1]}; {result.seconds:.1f} s CPU"
        + (f"; solo ratings {dict(Counter(result.ratings))}" if result.ratings else "")
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Play the games and print the figures; exit 1 if a Crossing goal is missed."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seats", default="1,2,3,4,5,6", help="those a game has are played")
    parser.add_argument("--game", choices=("crossing", "loyang", "both"), default="both")
    parser.add_argument("--cap", type=int, default=0, help="Crossing: also run this round cap")
    args = parser.parse_args(argv)
    seat_counts = [int(s) for s in args.seats.split(",")]
    missed = False
    games = ("crossing", "loyang") if args.game == "both" else (args.game,)
    for game in games:
        caps: list[dict[str, object]] = [{}]
        if game == "crossing" and args.cap:
            caps.append({"round_cap": args.cap})
        for options in caps:
            if options:
                print(f"-- {game} with {options}")
            for seats in seat_counts:
                if seats not in game_rules(game).seat_counts:
                    continue
                result = measure(game, seats, args.games, options)
                print(report(result), flush=True)
                goal = GOALS.get((game, seats))
                missed |= not options and goal is not None and result.rate < goal
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
