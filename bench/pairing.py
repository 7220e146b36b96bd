"""Benchmark: Swiss pairing times, repeats and score spread, against a plain-fold baseline.

Part 1, the hard cases: whole seeded Swisses (16 at 4 seats for 12 rounds, 24 at 4 for 10,
120 at 6 for 8), one line per round with the pairing's CPU time, the repeats seated, the lower bound
on repeats, and the mean score spread within a table (in match points). Goal: every pairing of
up to 1,000 entrants under 100 ms. Part 2: 1,000 and 10,000 entrants (goal under 1 s) after a
few rounds with seeded random results, so the timed round has a real history to avoid.
The baseline, timed in the same run, is a plain fold: sort by standing and cut into
tables with no repeat avoidance. Machines are shared and noisy, so the ratio is the number to
compare across runs; each timing is the best of a few repeats.
Part 3 (`--sweep [SEEDS] [STEP]`, only): the wide sweep, seeded Swisses of 13-57 entrants (every
STEP, default 4) at 2-6 seats for 10 rounds (SEEDS, default 1); prints how many rematch-free
searches found a seating, proved none exists, or ran out of budget (undecided), the slowest
pairing's CPU time (the 10 slowest re-timed, best of 5 each), the repeats seated and the mean
score spread within a table.
"""

from __future__ import annotations

import heapq
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from itertools import combinations
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.tournament import rematch, seating
from arena.tournament.pairing import (
    Entrant,
    History,
    Pairing,
    RoundResult,
    TableResult,
    pair_round,
    standings,
)
from arena.tournament.rematch import repeat_lower_bound

TABLE_SIZE = 4
ALLOWED = (3, 4)
ROUNDS_BEFORE = 3
REPEATS = 3
SEED = 2024
HARD_CASES = ((16, 4, 12), (24, 4, 10), (14, 3, 8), (120, 6, 8))
SLOW_KEPT = 10


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


def spread(pairing: Pairing, field: tuple[Entrant, ...]) -> float:
    """Mean over tables of (highest - lowest score) at the table, in match points."""
    score = {e.bot: e.score for e in field}
    spreads = [max(score[b] for b in t) - min(score[b] for b in t) for t in pairing.tables]
    return float(sum(spreads) / len(spreads)) if spreads else 0.0


def lower_bound(field: tuple[Entrant, ...], history: History, pairing: Pairing) -> int:
    """The pairing's own lower bound on repeats for this round (0 when someone sits out)."""
    if pairing.byes:
        return 0
    position = {e.bot: i for i, e in enumerate(field)}
    met: list[dict[int, int]] = [{} for _ in field]
    for (a, b), times in history.meetings.items():
        if a in position and b in position:
            met[position[a]][position[b]] = met[position[b]][position[a]] = times
    return repeat_lower_bound(met, min(len(t) for t in pairing.tables))


def hard_case(count: int, table_size: int, rounds: int) -> float:
    """Play a whole Swiss; print one line per round; return the slowest pairing in seconds."""
    rnd = random.Random(SEED + count)
    bots = range(count)
    ratings = {bot: rnd.gauss(1500, 200) for bot in bots}
    allowed = (table_size - 1, table_size)
    history = History()
    results: list[RoundResult] = []
    slowest = 0.0
    print(f"{count} entrants at {table_size}-seat tables")
    print(f"{'round':>7} {'pairing':>10} {'repeats':>8} {'bound':>6} {'spread':>7}")
    for round_no in range(1, rounds + 1):
        field = standings(bots, results, ratings)
        start = time.process_time()  # CPU time: the machine is shared, wall time is noisy
        paired = pair_round(field, history, table_size, allowed, SEED, round_no)
        took = time.process_time() - start
        slowest = max(slowest, took)
        print(
            f"{round_no:>7} {took * 1e3:>8.1f}ms {repeats(paired, history):>8}"
            f" {lower_bound(field, history, paired):>6} {spread(paired, field):>7.3f}"
        )
        history = history.after(paired.tables)
        tables = tuple(
            TableResult(t, tuple(rnd.sample(range(len(t)), len(t)))) for t in paired.tables
        )
        results.append(RoundResult(table_size, tables, paired.byes))
    return slowest


def _cpu_time(run: Callable[[], Pairing]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def sweep(seeds: int, step: int) -> None:
    """Part 3: count the rematch-free search's verdicts over a wide sweep of Swisses."""
    verdicts: list[rematch.Verdict] = []

    def recording(*args: Any, **kwargs: Any) -> rematch.Verdict:
        verdicts.append(rematch.find_rematch_free(*args, **kwargs))
        return verdicts[-1]

    # Count the verdicts where the pairing asks for them (as tests/tournament/test_rematch.py does).
    seating.find_rematch_free = recording  # type: ignore[attr-defined]
    pairings, seated_repeats, spreads = 0, 0, 0.0
    # The slowest pairings, re-timed at the end: one timing of a shared machine is noisy.
    slow: list[tuple[float, int, Callable[[], Pairing]]] = []
    for seed in range(seeds):
        for count in range(13, 58, step):
            for size in range(2, 7):
                rnd = random.Random(seed * 1000 + count * 10 + size)
                bots = range(count)
                ratings = {bot: rnd.uniform(1200, 1800) for bot in bots}
                allowed = (size - 1, size) if size > 2 else (2,)
                history = History()
                results: list[RoundResult] = []
                for round_no in range(1, 11):
                    field = standings(bots, results, ratings)
                    start = time.process_time()
                    paired = pair_round(field, history, size, allowed, seed, round_no)
                    took = time.process_time() - start
                    again: Callable[[], Pairing] = partial(
                        pair_round, field, history, size, allowed, seed, round_no
                    )
                    heapq.heappush(slow, (took, pairings, again))
                    if len(slow) > SLOW_KEPT:
                        heapq.heappop(slow)
                    pairings += 1
                    seated_repeats += repeats(paired, history)
                    spreads += spread(paired, field)
                    history = history.after(paired.tables)
                    tables = tuple(
                        TableResult(t, tuple(rnd.randrange(len(t)) for _ in t))
                        for t in paired.tables
                    )
                    results.append(RoundResult(size, tables, paired.byes))
    seating.find_rematch_free = rematch.find_rematch_free  # type: ignore[attr-defined]
    slowest = max(min(_cpu_time(again) for _ in range(REPEATS + 2)) for _, _, again in slow)
    found = sum(v.seating is not None for v in verdicts)
    proven = sum(v.proven for v in verdicts)
    print(
        f"sweep: {pairings} pairings, {len(verdicts)} rematch-free searches: {found} found,"
        f" {proven} proven impossible, {len(verdicts) - found - proven} undecided;"
        f" slowest pairing {slowest * 1e3:.1f} ms CPU (best of {REPEATS + 2} re-timings of the"
        f" {SLOW_KEPT} slowest; goal < 100 ms); {seated_repeats} repeats"
        f" seated, mean spread {spreads / pairings:.3f} points"
    )


def main() -> None:
    """Print the hard cases round by round, then pairing and baseline times for large fields;
    with --sweep, only the wide sweep."""
    if "--sweep" in sys.argv:
        args = [int(a) for a in sys.argv[sys.argv.index("--sweep") + 1 :]]
        sweep(*(args + [1, 4][len(args) :]))
        return
    slowest = max(hard_case(n, size, rounds) for n, size, rounds in HARD_CASES)
    print(f"slowest hard-case pairing: {slowest * 1e3:.1f} ms (goal < 100 ms)")
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
