"""Rematch-free seating: does one exist, and which; a most-constrained-first search with a budget.

Players are positions 0..n-1 in standing order; `met[i]` maps the positions `i` has met to how
often. Before searching, a capacity count (arena/tournament/strangers.py) proves no seating
exists when more players can only take short seats than there are, or only full ones. Then, when
the stranger graph is sparse enough to list its tables, an exact cover over the listed tables
(arena/tournament/cover.py) decides most rounds within its budget. Otherwise, the search
seats next, of the few players with the fewest strangers left (players barred from short seats
first), the one with the fewest tables it could still take, as an exact cover search picks its
column; it fills that table from the nearest standings outwards, so the first seating found
already keeps score groups together. It prunes a branch as soon as an unseated player has no set
of mutual strangers left to fill the smallest table it may take, or the short seats cannot all
go to eligible players. A search that runs out of nodes restarts with other tie-breaks, filling
tables with the most constrained tablemates first; a search that ends within its budget without
a seating proves none exists. At 2-seat tables a perfect matching (arena/tournament/matching.py)
decides exactly whenever the search runs out."""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.tournament.cover import Cover, CoverOutOfBudget, TooManyTables
from arena.tournament.matching import pair_strangers
from arena.tournament.strangers import Slot as Slot  # re-exported: callers name slots by it
from arena.tournament.strangers import (
    has_clique,
    outwards,
    over_capacity,
    tables_of,
)


@dataclass(frozen=True, slots=True)
class Seating:
    """A rematch-free seating: (slot, positions) per table, and the positions sitting out."""

    tables: tuple[tuple[Slot, tuple[int, ...]], ...]
    sitting_out: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the search found: a seating, or None with whether none can exist (`proven`); and
    the work the exact cover spent (live tables visited), so a caller can share a budget."""

    seating: Seating | None
    proven: bool
    cover_work: int = 0


# Inside the search, players with at most this many strangers per seat they must fill are
# checked for a table of mutual strangers.
_FEW = 2
# How many of the likeliest to be stranded are weighed for the next table, and the count of
# tables beyond which a player is not worth counting further.
_ANCHOR_CHOICES = 4
_COUNT_CAP = 12


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
    first_budget: int = 0,
    cover_budget: int = 0,
    cover_tables: int = 0,
) -> Verdict:
    """Seat every position at the `slots` (or among `sit_out`) with no two who met before.

    With `eligible`, only eligible positions take a short-table seat (a slot whose kind is in
    `short_kinds`) or sit out. The first attempt explores at most `first_budget` nodes (at
    least `budget`): it is the one that can prove no seating exists, which restarts cannot;
    each restart explores at most `budget`. With `cover_budget`, an exact cover over the listed
    tables (arena/tournament/cover.py, at most `cover_tables` of them) decides first.
    """
    if over_capacity(met, slots, sit_out, short_kinds, eligible):
        return Verdict(None, True)
    spent = 0
    if cover_budget:
        cover = Cover(met, dict(slots), sit_out, short_kinds, eligible, cover_budget, cover_tables)
        try:
            covered = cover.run()
        except CoverOutOfBudget:
            # The cover spent the time of the long first attempt, and proves more per node:
            # only the restarts, which find some seatings it missed, are left to try.
            first_budget = 0
        except TooManyTables:
            # A dense stranger graph: the search below finds a seating there at once, when
            # one exists; its long first attempt proved none on the wide sweep.
            first_budget = 0
        else:
            if covered is None:
                return Verdict(None, True, cover.work)
            return Verdict(Seating(tuple(covered[0]), tuple(covered[1])), False, cover.work)
        spent = cover.work
    rnd = random.Random(seed)
    proven = False
    for attempt in range(restarts + 1):
        ties = [0.0] * len(met) if attempt == 0 else [rnd.random() for _ in met]
        nodes = max(budget, first_budget) if attempt == 0 else budget
        # A restart fills a table with the tablemates who have the fewest strangers left
        # first: it gives up some score grouping (polished afterwards) to find hard seatings.
        search = _Search(
            met, Counter(slots), sit_out, short_kinds, eligible, nodes, ties, attempt > 0
        )
        try:
            found = search.run()
        except _OutOfBudget:
            continue
        if found is None:
            proven = True
            break
        return Verdict(found, False, spent)
    kinds = [slot for slot, count in slots.items() if count]
    if not proven and len(kinds) == 1 and kinds[0][1] == 2 and kinds[0][0] not in short_kinds:
        # Every table seats two: a matching decides exactly where the search ran out.
        paired = pair_strangers(met, sit_out, eligible)
        if paired is None:
            return Verdict(None, True, spent)
        pairs, out = paired
        seating = Seating(tuple((kinds[0], pair) for pair in pairs), tuple(out))
        return Verdict(seating, False, spent)
    return Verdict(None, proven, spent)


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
        constrained_first: bool,
    ) -> None:
        self.met = met
        self.slots = slots
        self.sit_out = sit_out
        self.short_kinds = short_kinds
        self.eligible = eligible
        self.budget = budget
        self.ties = ties
        self.constrained_first = constrained_first
        self.free = [True] * len(met)
        self.left = len(met)
        # How many players still unseated each player has met: most constrained = largest.
        self.met_left = [len(m) for m in met]
        self.tables: list[tuple[Slot, tuple[int, ...]]] = []
        self.out: list[int] = []
        self.nodes = 0

    def run(self) -> Seating | None:
        if self._stranded(everyone=True) or not self._place():
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
        anchor = self._anchor()
        if anchor is None:
            return False
        mine = self.met[anchor]
        near = [q for q in outwards(self.free, anchor) if q not in mine]
        if self.constrained_first:
            near.sort(key=lambda q: (-self.met_left[q], self.ties[q]))
        for slot in sorted(s for s, n in self.slots.items() if n):
            short = slot[0] in self.short_kinds
            if short and not self._may_sit_short(anchor):
                continue
            if short:
                cands = [q for q in near if self._may_sit_short(q)]
            elif self.eligible is not None:
                # Full seats are all that players barred from short seats can take: fill them
                # with those players first, so eligible ones are left for the short tables.
                cands = [q for q in near if not self.eligible[q]]
                cands += [q for q in near if self.eligible[q]]
            else:
                cands = near
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

    def _anchor(self) -> int | None:
        """The player to seat next, or None if one of the likeliest to be stranded has no table.

        Players kept off short seats have the fewest places, then those with the fewest
        strangers left; among the `_ANCHOR_CHOICES` first of that order, the one with the fewest
        tables it could still take (counted up to the best so far), as an exact cover search
        picks its column: the search then branches as little as it can, and a player left with
        none ends the branch at once."""
        free, met_left, ties = self.free, self.met_left, self.ties
        elig = self.eligible
        barred = [False] * len(free) if elig is None else [not e for e in elig]
        order = heapq.nlargest(
            _ANCHOR_CHOICES,
            (p for p in range(len(free)) if free[p]),
            key=lambda p: (barred[p], met_left[p], ties[p], -p),
        )
        best, fewest = order[0], -1
        for p in order:
            cap = fewest if fewest >= 0 else _COUNT_CAP
            if self.sit_out and self._may_sit_short(p):
                count = cap  # a seat out is always left: never the most constrained
            else:
                count = tables_of(self.met, free, p, self.slots, self.short_kinds, elig, cap)
            if count == 0:
                return None
            if fewest < 0 or count < fewest:
                best, fewest = p, count
        return best

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
        if not all(
            not free or met <= most for free, met in zip(self.free, self.met_left, strict=True)
        ):
            return False
        return not self._stranded(everyone=False)

    def _stranded(self, everyone: bool) -> bool:
        """Whether some unseated player has no table left: among the unseated, no set of
        mutual strangers fills the smallest table it may take (a player who may sit out, while
        seats out remain, always has a place). Inside the search (not `everyone`) only players
        with few strangers left are checked: the others nearly always have a table, and the
        check is the search's most expensive step."""
        sizes = [(kind in self.short_kinds, size) for (kind, size), n in self.slots.items() if n]
        full = min((size for short, size in sizes if not short), default=0)
        any_size = min((size for _, size in sizes), default=0)
        free = [p for p, f in enumerate(self.free) if f]
        if self.eligible is not None:
            short_seats = sum(
                size * n for (kind, size), n in self.slots.items() if kind in self.short_kinds
            )
            full_seats = sum(size * n for (_, size), n in self.slots.items()) - short_seats
            eligible = sum(self.eligible[p] for p in free)
            if eligible < short_seats + self.sit_out or len(free) - eligible > full_seats:
                return True
        for p in free:
            may_short = self._may_sit_short(p)
            if self.sit_out and may_short:
                continue
            need = any_size if may_short else full
            if not need:
                return True
            if not everyone and self.left - 1 - self.met_left[p] > _FEW * need:
                continue
            mine = self.met[p]
            strangers = [q for q in free if q != p and q not in mine]
            if not has_clique(self.met, strangers, need - 1):
                return True
        return False
