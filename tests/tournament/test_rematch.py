"""Rematch avoidance is guaranteed: checked round by round against an exhaustive search."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from arena.pairing import (
    Entrant,
    History,
    Pairing,
    RoundResult,
    TableResult,
    pair_round,
    standings,
)


def rematch_free_exists(bots: list[int], history: History, sizes: list[int], byes: int) -> bool:
    """Exhaustive: can `bots` sit at tables of `sizes` (plus `byes` sitting out) with no two
    tablemates who met before? The first unseated bot always sits somewhere, so every partition
    is reached once; a table with a repeat is cut as soon as it appears."""
    left = Counter(sizes)

    def fits(table: list[int], bot: int) -> bool:
        return all(not history.times_met(bot, other) for other in table)

    def fill(table: list[int], size: int, rest: list[int], start: int, free: int) -> bool:
        if len(table) == size:
            return seat([b for b in rest if b not in table], free)
        for k in range(start, len(rest)):
            if rest[k] not in table and fits(table, rest[k]):
                table.append(rest[k])
                if fill(table, size, rest, k + 1, free):
                    return True
                table.pop()
        return False

    def seat(rest: list[int], free: int) -> bool:
        if not rest:
            return True
        first, others = rest[0], rest[1:]
        if free and seat(others, free - 1):
            return True
        for size in [s for s, n in left.items() if n]:
            left[size] -= 1
            found = fill([first], size, others, 0, free)
            left[size] += 1
            if found:
                return True
        return False

    return seat(bots, byes)


def repeats(pairing: Pairing, history: History) -> int:
    return sum(history.times_met(a, b) for t in pairing.tables for a, b in combinations(t, 2))


def simulate(entrants: int, table_size: int, rounds: int, seed: int) -> list[tuple[int, bool, int]]:
    """Play a seeded Swiss; per round: (round, rematch-free pairing exists, repeats seated)."""
    rnd = random.Random(seed)
    bots = list(range(entrants))
    ratings = {bot: rnd.uniform(1200, 1800) for bot in bots}
    results: list[RoundResult] = []
    history = History()
    out = []
    allowed = [table_size - 1, table_size]
    for round_no in range(1, rounds + 1):
        field: tuple[Entrant, ...] = standings(bots, results, ratings)
        pairing = pair_round(field, history, table_size, allowed, seed, round_no)
        sizes = [len(t) for t in pairing.tables]
        exists = rematch_free_exists(bots, history, sizes, len(pairing.byes))
        out.append((round_no, exists, repeats(pairing, history)))
        history = history.after(pairing.tables)
        tables = tuple(
            TableResult(t, tuple(rnd.randrange(len(t)) for _ in t)) for t in pairing.tables
        )
        results.append(RoundResult(table_size, tables, pairing.byes))
    return out


@pytest.mark.parametrize(
    ("entrants", "table_size", "rounds"),
    [(14, 3, 6), (13, 3, 6), (15, 3, 6), (16, 4, 5), (17, 4, 5), (18, 3, 7), (20, 4, 6)],
)
@pytest.mark.parametrize("seed", range(6))
def test_a_repeat_is_seated_only_when_no_rematch_free_pairing_exists(
    entrants: int, table_size: int, rounds: int, seed: int
) -> None:
    for round_no, exists, seated in simulate(entrants, table_size, rounds, seed):
        if exists:
            assert seated == 0, f"round {round_no}: {seated} repeats though none were needed"
