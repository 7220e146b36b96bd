"""Rematch-free seating: does one exist, and which; a most-constrained-first search with a budget.

Players are positions 0..n-1 in standing order; `met[i]` maps the positions `i` has met to how
often. The search seats the player with the fewest possible tablemates left first (the one most
likely to be stranded), and fills its table from the nearest standings outwards, so the first
seating found already keeps score groups together. A search that runs out of nodes restarts with
other tie-breaks; a search that ends within its budget without a seating proves none exists.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

# A table slot: (kind, seats). Kinds are small ints ordered as the caller prefers to try them.
Slot = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Seating:
    """A rematch-free seating: (slot, positions) per table, and the positions sitting out."""

    tables: tuple[tuple[Slot, tuple[int, ...]], ...]
    sitting_out: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the search found: a seating, or None with whether none can exist (`proven`)."""

    seating: Seating | None
    proven: bool


class _OutOfBudget(Exception):
    pass


def repeat_lower_bound(met: Sequence[dict[int, int]], smallest_table: int) -> int:
    """A lower bound on the summed past meetings of tablemates when nobody sits out."""
    total = 0
    need = smallest_table - 1
    for mine in met:
        strangers = len(met) - 1 - len(mine)
        if strangers < need:
            total += sum(sorted(mine.values())[: need - strangers])
    return -(-total // 2)


def find_rematch_free(
    met: Sequence[dict[int, int]],
    slots: Counter[Slot],
    sit_out: int,
    short_kinds: frozenset[int],
    eligible: Sequence[bool] | None,
    budget: int,
    restarts: int,
    seed: int,
) -> Verdict:
    """Seat every position at the `slots` (or among `sit_out`) with no two who met before.

    With `eligible`, only eligible positions take a short-table seat (a slot whose kind is in
    `short_kinds`) or sit out. Each attempt explores at most `budget` nodes.
    """
    rnd = random.Random(seed)
    proven = False
    for attempt in range(restarts + 1):
        ties = [0.0] * len(met) if attempt == 0 else [rnd.random() for _ in met]
        search = _Search(met, Counter(slots), sit_out, short_kinds, eligible, budget, ties)
        try:
            found = search.run()
        except _OutOfBudget:
            continue
        if found is None:
            proven = True
            break
        return Verdict(found, False)
    return Verdict(None, proven)


class _Search:
    """One depth-first attempt; raises `_OutOfBudget` when it has explored `budget` nodes."""

    def __init__(
        self,
        met: Sequence[dict[int, int]],
        slots: Counter[Slot],
        sit_out: int,
        short_kinds: frozenset[int],
        eligible: Sequence[bool] | None,
        budget: int,
        ties: list[float],
    ) -> None:
        self.met = met
        self.slots = slots
        self.sit_out = sit_out
        self.short_kinds = short_kinds
        self.eligible = eligible
        self.budget = budget
        self.ties = ties
        self.free = [True] * len(met)
        self.left = len(met)
        # How many players still unseated each player has met: most constrained = largest.
        self.met_left = [len(m) for m in met]
        self.tables: list[tuple[Slot, tuple[int, ...]]] = []
        self.out: list[int] = []
        self.nodes = 0

    def run(self) -> Seating | None:
        if not self._place():
            return None
        return Seating(tuple(self.tables), tuple(sorted(self.out)))

    def _take(self, players: Sequence[int]) -> None:
        for p in players:
            self.free[p] = False
            self.left -= 1
            for q in self.met[p]:
                self.met_left[q] -= 1

    def _give_back(self, players: Sequence[int]) -> None:
        for p in players:
            self.free[p] = True
            self.left += 1
            for q in self.met[p]:
                self.met_left[q] += 1

    def _may_sit_short(self, p: int) -> bool:
        return self.eligible is None or self.eligible[p]

    def _place(self) -> bool:
        if self.left == 0:
            return True
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfBudget
        free, met_left, ties = self.free, self.met_left, self.ties
        anchor = max(
            (p for p in range(len(free)) if free[p]), key=lambda p: (met_left[p], ties[p], -p)
        )
        mine = self.met[anchor]
        near = [q for q in self._outwards(anchor) if q not in mine]
        for slot in sorted(s for s, n in self.slots.items() if n):
            short = slot[0] in self.short_kinds
            if short and not self._may_sit_short(anchor):
                continue
            cands = [q for q in near if self._may_sit_short(q)] if short else near
            if len(cands) < slot[1] - 1:
                continue
            self.slots[slot] -= 1
            found = self._fill(slot, [anchor], cands, 0)
            self.slots[slot] += 1
            if found:
                return True
        if self.sit_out and self._may_sit_short(anchor):
            self.sit_out -= 1
            self._take([anchor])
            self.out.append(anchor)
            if self._place():
                return True
            self.out.pop()
            self._give_back([anchor])
            self.sit_out += 1
        return False

    def _fill(self, slot: Slot, table: list[int], cands: list[int], start: int) -> bool:
        if len(table) == slot[1]:
            self._take(table)
            self.tables.append((slot, tuple(sorted(table))))
            if self._viable() and self._place():
                return True
            self.tables.pop()
            self._give_back(table)
            return False
        need = slot[1] - len(table)
        for k in range(start, len(cands) - need + 1):
            q = cands[k]
            self.nodes += 1
            if self.nodes > self.budget:
                raise _OutOfBudget
            met_q = self.met[q]
            # Only candidates after q that q has not met can join q's table.
            rest = [c for c in cands[k + 1 :] if c not in met_q]
            if len(rest) < need - 1:
                continue
            table.append(q)
            if self._fill(slot, table, rest, 0):
                return True
            table.pop()
        return False

    def _viable(self) -> bool:
        """Forward check: every unseated player can still find enough strangers for a table."""
        if self.sit_out or self.left == 0:
            return True
        smallest = min(size for (_, size), n in self.slots.items() if n)
        most = self.left - smallest  # more than this many met among the unseated: stranded
        return all(
            not free or met <= most for free, met in zip(self.free, self.met_left, strict=True)
        )

    def _outwards(self, anchor: int) -> list[int]:
        """Free players by distance from `anchor` in the standings, nearest first."""
        free = self.free
        out = []
        for d in range(1, len(free)):
            lo, hi = anchor - d, anchor + d
            if lo < 0 and hi >= len(free):
                break
            if lo >= 0 and free[lo]:
                out.append(lo)
            if hi < len(free) and free[hi]:
                out.append(hi)
        return out
