"""Rematch-free seating as an exact cover over explicit tables (Knuth's Algorithm X).

Every set of mutual strangers that fits an open slot is listed once, up front, as a bit mask;
the search then covers the players with disjoint listed tables, always branching on the unseated
player with the fewest live tables left (a table dies when one of its players is seated, or when
its slot kind runs out), and a player with none ends the branch. Listing costs a few
milliseconds once the stranger graph is sparse, which is exactly where the table-by-table search
(arena/tournament/rematch.py) runs out of nodes: it recounts the mutual strangers at every node,
here a node filters the live tables. At every node a Hall count over the slot kinds (the players
who can only take seats of some kinds must not outnumber those kinds' seats) cuts branches that
the per-player count cannot. On the rounds the table-by-table search left undecided, this decides
about three in four within the same time (bench/README.md). Forcing a player's certain tablemates
(propagation) halved the nodes but doubled the time, so it is not done.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import chain
from math import comb

from arena.tournament.strangers import Slot

# A listed table: the bit mask of its players, and the players ascending.
_Table = tuple[int, tuple[int, ...]]


# How far beyond the table cap the estimated count of the largest tables may go before the
# listing is not even tried (the estimate is rough: the field is not a random graph).
_ESTIMATE_SLACK = 8


class CoverOutOfBudget(Exception):
    """The cover search explored its node budget without deciding."""


class TooManyTables(Exception):
    """The stranger graph is too dense to list its tables cheaply (the other search's case)."""


def list_tables(strangers: Sequence[int], pool: int, size: int, cap: int) -> list[_Table]:
    """Every set of `size` mutual strangers among the players of the bit mask `pool`, as (mask,
    players ascending), at most `cap` of them; `strangers[p]` is the bit mask of p's strangers."""
    out: list[_Table] = []
    prefix: list[int] = []

    def grow(pool: int, chosen: int, k: int) -> None:
        while pool:
            low = pool & -pool
            pool ^= low
            c = low.bit_length() - 1
            if k == 1:
                out.append((chosen | low, (*prefix, c)))
                if len(out) > cap:
                    raise TooManyTables
                continue
            rest = pool & strangers[c]  # `pool` holds only players after c by now
            if rest.bit_count() >= k - 1:
                prefix.append(c)
                grow(rest, chosen | low, k - 1)
                prefix.pop()

    grow(pool, 0, size)
    return out


class Cover:
    """One exact-cover search; `run` returns the tables (slot, members) and the players sitting
    out, None when no rematch-free seating exists, or raises `CoverOutOfBudget`/`TooManyTables`.
    Each node filters the live tables of every kind afresh (a list comprehension over bit masks
    costs less in Python than killing tables one by one and undoing it)."""

    def __init__(
        self,
        met: Sequence[dict[int, int]],
        slots: dict[Slot, int],
        sit_out: int,
        short_kinds: frozenset[int],
        eligible: Sequence[bool] | None,
        budget: int,
        table_cap: int,
    ) -> None:
        self.n = len(met)
        self.kinds: list[Slot] = sorted(s for s, c in slots.items() if c)
        self.left = [slots[s] for s in self.kinds]
        self.seats = [size for _, size in self.kinds]
        self.live: list[list[_Table]] = []
        self._question = (met, sit_out, short_kinds, eligible, table_cap)
        self.budget = budget
        self.nodes = self.work = 0
        self.chosen: list[tuple[int, tuple[int, ...]]] = []

    def _list(self) -> None:
        """List the tables of every open slot kind, and the seats out."""
        met, sit_out, short_kinds, eligible, table_cap = self._question
        n = self.n
        everyone = (1 << n) - 1
        strangers = [everyone ^ (1 << p) ^ sum(1 << q for q in mine) for p, mine in enumerate(met)]
        # Random-graph estimate of the tables there are: far beyond the cap (a dense field, such
        # as 120 players in round 4), listing up to the cap only to give up would be time lost.
        density = sum(s.bit_count() for s in strangers) / max(1, n * (n - 1))
        size = max((size for _, size in self.kinds), default=0)
        if comb(n, size) * density ** (size * (size - 1) // 2) > _ESTIMATE_SLACK * table_cap:
            raise TooManyTables
        listed = 0
        for kind, size in self.kinds:
            pool = everyone
            if kind in short_kinds and eligible is not None:
                pool = sum(1 << p for p in range(n) if eligible[p])
            found = list_tables(strangers, pool, size, table_cap - listed)
            listed += len(found)
            # Tables of players close in the standings first: the first cover found keeps
            # score groups together as well as it can (polished afterwards).
            found.sort(key=lambda t: (t[1][-1] - t[1][0], t[1]))
            self.live.append(found)
        if sit_out:
            self.kinds.append((-1, 1))
            self.left.append(sit_out)
            self.seats.append(1)
            outs = [p for p in range(n) if eligible is None or eligible[p]]
            self.live.append([(1 << p, (p,)) for p in reversed(outs)])  # the lowest sit out first

    def run(self) -> tuple[list[tuple[Slot, tuple[int, ...]]], list[int]] | None:
        self._list()
        if not self._descend(self.live, self.n):
            return None
        tables = [(self.kinds[k], ms) for k, ms in self.chosen]
        out = sorted(ms[0] for slot, ms in tables if slot[0] < 0)
        return [(slot, ms) for slot, ms in tables if slot[0] >= 0], out

    def _descend(self, live: list[list[_Table]], unseated: int) -> bool:
        if unseated == 0:
            return True
        self.nodes += 1
        # The budget counts live tables visited, not nodes: a node costs time in proportion to
        # the tables still live, and those are many near the root of a dense listing.
        self.work += sum(map(len, live))
        if self.work > self.budget:
            raise CoverOutOfBudget
        column = self._column(live, unseated)
        if column is None:
            return False
        player, count = column
        bit = 1 << player
        options = [(k, x) for k, tables in enumerate(live) for x in tables if x[0] & bit]
        # The tables whose players have the fewest other tables first (stable: the nearest in
        # the standings among equals): 18 seatings found instead of 15 on the test fixture's
        # rounds, at the price of some score grouping that the polish after it wins back.
        options.sort(key=lambda option: sum(count[p] for p in option[1][1]))
        for k, (mask, members) in options:
            self.left[k] -= 1
            rest = [
                [x for x in ts if not x[0] & mask] if self.left[j] else []
                for j, ts in enumerate(live)
            ]
            self.chosen.append((k, members))
            if self._descend(rest, unseated - len(members)):
                return True
            self.chosen.pop()
            self.left[k] += 1
        return False

    def _column(self, live: list[list[_Table]], unseated: int) -> tuple[int, Counter[int]] | None:
        """The unseated player with the fewest live tables and every unseated player's count of
        live tables, or None when the branch is dead:
        some player has none, or the Hall count over slot kinds fails (the players who can only
        take seats of some kinds outnumber those kinds' seats). Counted with Counter and sets,
        whose loops run in C: this is the search's innermost step."""
        count = Counter(chain.from_iterable(ms for ts in live for _, ms in ts))
        if len(count) < unseated:
            return None  # live tables hold only unseated players: someone has none
        kinds = len(live)
        if kinds > 1:
            players = [set(chain.from_iterable(ms for _, ms in ts)) for ts in live]
            for subset in range(1, (1 << kinds) - 1):
                elsewhere = set().union(*(players[k] for k in range(kinds) if not subset >> k & 1))
                seats = sum(self.left[k] * self.seats[k] for k in range(kinds) if subset >> k & 1)
                if unseated - len(elsewhere) > seats:
                    return None
        return min(count, key=lambda p: (count[p], p)), count
