"""Benchmark: Swiss pairing of 1,000 and 10,000 entrants at 4-seat tables, against a baseline.

Each field plays a few rounds with seeded random results, so the timed round has a real history
to avoid. The baseline, timed in the same run, is a plain fold: sort by standing and cut into
tables with no repeat avoidance. Machines are shared and noisy, so the ratio is the number to
compare across runs; each timing is the best of a few repeats.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from functools import partial
from itertools import combinations
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.pairing import (
    Entrant,
    History,
    Pairing,
    RoundResult,
    TableResult,
    pair_round,
    standings,
)

TABLE_SIZE = 4
ALLOWED = (3, 4)
ROUNDS_BEFORE = 3
REPEATS = 3
SEED = 2024


def play_rounds(count: int) -> tuple[tuple[Entrant, ...], History]:
    """A field of `count` bots after `ROUNDS_BEFORE` rounds with random results."""
    rnd = random.Random(SEED)
    bots = range(count)
    ratings = {bot: rnd.gauss(1500, 200) for bot in bots}
    history = History()
    results: list[RoundResult] = []
    for round_no in range(ROUNDS_BEFORE):
        field = standings(bots, results, ratings)
        pairing = pair_round(field, history, TABLE_SIZE, ALLOWED, SEED, round_no)
        history = history.after(pairing.tables)
        tables = tuple(
            TableResult(t, tuple(rnd.sample(range(len(t)), len(t)))) for t in pairing.tables
        )
        results.append(RoundResult(TABLE_SIZE, tables, pairing.byes))
    return standings(bots, results, ratings), history


def plain_fold(field: tuple[Entrant, ...]) -> Pairing:
    """The baseline: order by standing and cut into tables, ignoring history."""
    order = sorted(field, key=lambda e: (-e.score, -e.tiebreak, -e.rating, e.bot))
    bots = [e.bot for e in order]
    full = len(bots) - len(bots) % TABLE_SIZE
    tables = tuple(tuple(bots[i : i + TABLE_SIZE]) for i in range(0, full, TABLE_SIZE))
    return Pairing(tables, tuple(bots[full:]))


def best_time(run: Callable[[], Pairing]) -> tuple[float, Pairing]:
    """The fastest of `REPEATS` runs, in seconds, and the last result."""
    best = float("inf")
    result = run()
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


def repeats(pairing: Pairing, history: History) -> int:
    """Pairs seated together who had met before."""
    return sum(history.times_met(a, b) for t in pairing.tables for a, b in combinations(t, 2))


def main() -> None:
    """Print pairing and baseline times and their ratio for each field size."""
    print(f"{TABLE_SIZE}-seat tables, round {ROUNDS_BEFORE + 1}, best of {REPEATS}")
    print(f"{'entrants':>9} {'pairing':>10} {'baseline':>10} {'ratio':>7} {'repeats':>15}")
    for count in (1_000, 10_000):
        field, history = play_rounds(count)
        swiss, paired = best_time(
            partial(pair_round, field, history, TABLE_SIZE, ALLOWED, SEED, ROUNDS_BEFORE)
        )
        fold, folded = best_time(partial(plain_fold, field))
        print(
            f"{count:>9,} {swiss * 1e3:>8.1f}ms {fold * 1e3:>8.2f}ms {swiss / fold:>6.0f}x"
            f" {repeats(paired, history):>6} vs {repeats(folded, history):>5}"
        )


if __name__ == "__main__":
    main()
