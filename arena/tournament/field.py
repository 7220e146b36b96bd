"""One round's field by standing position, what a partition of it costs, and the first fold."""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from fractions import Fraction

from arena.tournament.standings import POINT_UNITS, Entrant
from arena.tournament.table_plan import TablePlan

# How far down the standings the greedy fold looks for a player not met yet.
_WINDOW = 24
# Scores are compared in whole units: exact for every match-point value.
_UNITS = POINT_UNITS


class Kind(IntEnum):
    """What a group of players is this round."""

    FULL = 0
    SHORT = 1
    BYE = 2


# (repeats, unfair short tables or byes, score spread, height of byes and short tables, width)
Cost = tuple[int, int, int, int, int]
ZERO: Cost = (0, 0, 0, 0, 0)


# (kind, positions in the standing order, ascending)
Group = tuple[Kind, list[int]]


def add_costs(a: Cost, b: Cost) -> Cost:
    """The sum of two costs, term by term."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4])


def _units(score: Fraction | float) -> int:
    # Exact for match points; any other value (hand-made entrants) is compared to 1/120 point.
    return round(Fraction(score) * _UNITS)


class Field:
    """The ordered entrants of one round, addressed by standing position, and their costs."""

    def __init__(
        self,
        order: list[Entrant],
        meetings: Mapping[tuple[int, int], int],
        table_size: int,
    ) -> None:
        self.size = len(order)
        self.table_size = table_size
        self.score = [_units(e.score) for e in order]
        self.disadvantaged = [e.byes + e.short_tables for e in order]
        position = {e.bot: i for i, e in enumerate(order)}
        # Only meetings between present entrants matter; index them by position for speed.
        self.met: list[dict[int, int]] = [{} for _ in order]
        for (a, b), times in meetings.items():
            i, j = position.get(a), position.get(b)
            if i is not None and j is not None and times:
                self.met[i][j] = self.met[j][i] = times
        self.nodes = 0

    def cost(self, kind: Kind, members: list[int]) -> Cost:
        """The cost of one group; `members` are ascending positions."""
        low = self.size - 1
        if kind == Kind.BYE:
            unfair = sum(1 for i in members if self.disadvantaged[i])
            return (0, unfair, 0, sum(low - i for i in members), 0)
        met = self.met
        repeats = 0
        for i, a in enumerate(members):
            mine = met[a]
            if mine:  # a plain loop: this is the pairing's innermost call
                for b in members[i + 1 :]:
                    repeats += mine.get(b, 0)
        spread = self.score[members[0]] - self.score[members[-1]]
        width = members[-1] - members[0]
        if kind == Kind.SHORT:
            unfair = sum(1 for i in members if self.disadvantaged[i])
            return (repeats, unfair, spread, sum(low - i for i in members), width)
        return (repeats, 0, spread, 0, width)

    def total(self, groups: list[Group]) -> Cost:
        """The summed cost of a partition."""
        out = ZERO
        for kind, members in groups:
            out = add_costs(out, self.cost(kind, members))
        return out

    def fold(self, plan: TablePlan) -> list[Group]:
        """A first partition: byes and short seats, then a greedy fold that skips past meetings."""
        want = plan.byes + sum(plan.short)
        # Fewest earlier byes or short tables first, then lowest in the standings.
        reserve = sorted(range(self.size), key=lambda i: (self.disadvantaged[i], -i))[:want]
        bye_set = sorted(reserve[: plan.byes])
        short_set = set(reserve[plan.byes :])
        taken = set(reserve)
        main = [i for i in range(self.size) if i not in taken]
        groups = [(Kind.FULL, g) for g in self._greedy(main, [plan.table_size] * plan.full)]
        groups += [(Kind.SHORT, g) for g in self._greedy(sorted(short_set), list(plan.short))]
        if bye_set:
            groups.append((Kind.BYE, bye_set))
        return groups

    def _greedy(self, pool: list[int], sizes: list[int]) -> list[list[int]]:
        rest = pool[::-1]  # the next player is at the end, so taking it is cheap
        groups: list[list[int]] = []
        for size in sizes:
            members = [rest.pop()]
            while len(members) < size:
                best, fewest = len(rest) - 1, -1
                for back in range(1, min(_WINDOW, len(rest)) + 1):
                    met = self.met[rest[-back]]
                    times = sum(met.get(m, 0) for m in members)
                    if fewest < 0 or times < fewest:
                        best, fewest = len(rest) - back, times
                        if times == 0:
                            break
                members.append(rest.pop(best))
            groups.append(sorted(members))
        return groups
