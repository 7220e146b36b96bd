"""Paired sets: which seat each bot takes in each match of a set, and the set's seed.

A set is two matches with the same seed (the same deal, dice and draws) and the same filler bots
in the same seats; the candidate and the baseline sit in seats i and j in the first match and in
j and i in the second. Over successive sets the pair (i, j) runs through every pair of seats and
the fillers rotate through the other seats, so the test averages over every position. Swapping
inside a set is what makes the set's score unbiased for any seat asymmetry: whatever seat i gives
over seat j, on this deal and beside these fillers, both bots get it once.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

CANDIDATE = "candidate"
BASELINE = "baseline"
MATCHES_PER_SET = 2


@dataclass(frozen=True, slots=True)
class SetPlan:
    """The seating of one set: per match, who sits in each seat."""

    set_no: int
    seats: tuple[int, int]
    """(i, j): the candidate's and the baseline's seats in the first match."""
    lineups: tuple[tuple[str, ...], ...]
    """Per match, one entry per seat: `CANDIDATE`, `BASELINE` or a filler's name."""

    def seat_of(self, game_no: int, role: str) -> int:
        """The seat `role` (candidate or baseline) takes in match `game_no` of the set."""
        return self.lineups[game_no].index(role)


def seat_pairs(seats: int) -> list[tuple[int, int]]:
    """Every unordered pair of seats, in the order sets use them."""
    return list(itertools.combinations(range(seats), 2))


def plan_set(set_no: int, seats: int, fillers: Sequence[str]) -> SetPlan:
    """The seating of set `set_no` (from 0) at a table of `seats` with these filler bots."""
    if seats < 2:
        raise ValueError(f"a test needs at least 2 seats, not {seats}")
    if seats > 2 and not fillers:
        raise ValueError(f"a {seats}-seat test needs at least one filler bot")
    pairs = seat_pairs(seats)
    i, j = pairs[set_no % len(pairs)]
    turn = set_no // len(pairs)  # after every pair of seats, the fillers move round one place
    others = [s for s in range(seats) if s not in (i, j)]
    lineup = [""] * seats
    for k, seat in enumerate(others):
        lineup[seat] = fillers[(k + turn) % len(fillers)]
    first, second = list(lineup), list(lineup)
    first[i], first[j] = CANDIDATE, BASELINE
    second[i], second[j] = BASELINE, CANDIDATE
    return SetPlan(set_no=set_no, seats=(i, j), lineups=(tuple(first), tuple(second)))


def set_seed(test_seed: int, salt: str, set_no: int, attempt: int = 1) -> int:
    """A set's chance seed, from the test's seed and stored salt (a replay gets its own)."""
    text = f"versiontest:{salt}:{test_seed}:{set_no}:{attempt}"
    digest = hashlib.blake2b(text.encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 2
