"""Swiss pairing for tables of 2-6 seats: meeting history and `pair_round`."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from fractions import Fraction
from itertools import combinations

from arena.tournament.rematch import Slot, find_rematch_free, repeat_lower_bound
from arena.tournament.standings import (
    POINT_UNITS,
    Entrant,
    RoundResult,
    TableResult,
    bye_points,
    match_points,
    rank_key,
    standings,
)
from arena.tournament.table_plan import TablePlan, plan_tables

__all__ = [
    "Entrant",
    "History",
    "Pairing",
    "RoundResult",
    "TablePlan",
    "TableResult",
    "bye_points",
    "match_points",
    "pair_round",
    "plan_tables",
    "standings",
]

# `pair_round` orders the entrants by score, tie-break, rating and a hash of (seed, round, bot),
# then partitions them into the tables of `plan_tables` minimising, in this order: repeat
# meetings, byes or short tables for players who already had one, score spread within a table,
# and then, so that byes and short tables go low and tables stay compact, standing position.
# Small fields are solved exactly by branch and bound. Larger fields are folded greedily and each
# group that still has a repeat or an unfair seat is re-solved exactly with nearby groups. If a
# repeat is left, a most-constrained-first search (arena/tournament/rematch.py) decides whether a
# rematch-free seating exists; when it finds one, pairwise re-solving of nearby tables brings
# the score spread back down without letting a repeat in. When repeats are provably unavoidable
# (a lower bound is met, or the search proved no rematch-free seating exists), it stops.

# Fields up to this size are partitioned exactly, with no node budget.
_EXACT_LIMIT = 12
# Players re-solved together around a table that still has a repeat or an unfair short seat.
_BLOCK_PLAYERS = 12
# Search nodes per block: bounds the time of a pathological block, keeping the best found.
_BLOCK_BUDGET = 4_000
# Search nodes for all the repairs of one round together, and for the quick first repair.
_REPAIR_BUDGET = 6_000
_QUICK_REPAIR = 1_500
# How far down the standings the greedy fold looks for a player not met yet.
_WINDOW = 24
_REPAIR_PASSES = 3
# How many groups away, in the fold's order, a group with a repeat looks for a swap.
_REACH = 16
# The rematch-free search: nodes per attempt, restarts, and the most players searched together.
# The first attempt, the one that can prove that no seating exists, gets about
# _FREE_WORK / players nodes (a node costs time in proportion to the players).
_FREE_BUDGET = 1_000
_FREE_WORK = 150_000
_FREE_RESTARTS = 3
_FREE_LIMIT = 400
# Passes of pairwise swaps that bring the score spread down after that search.
_POLISH_PASSES = 3
_POLISH_REACH = 3
# Scores are compared in whole units: exact for every match-point value.
_UNITS = POINT_UNITS


class _Kind(IntEnum):
    """What a group of players is this round."""

    FULL = 0
    SHORT = 1
    BYE = 2


# (repeats, unfair short tables or byes, score spread, height of byes and short tables, width)
_Cost = tuple[int, int, int, int, int]
_ZERO: _Cost = (0, 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class History:
    """Who met whom how often, and how each bot has been seated so far."""

    meetings: Mapping[tuple[int, int], int] = field(default_factory=dict)
    """(lower bot id, higher bot id) -> times they shared a table."""
    firsts: Mapping[int, int] = field(default_factory=dict)
    """Bot -> times it held the first seat."""
    lateness: Mapping[int, float] = field(default_factory=dict)
    """Bot -> sum over its tables of seat / (seats - 1): 0 when first, 1 when last."""

    def times_met(self, a: int, b: int) -> int:
        """How many tables bots `a` and `b` have shared."""
        return self.meetings.get((a, b) if a < b else (b, a), 0)

    def after(self, tables: Iterable[Sequence[int]]) -> History:
        """This history plus one round of tables, each listing its bots in seat order."""
        meetings = dict(self.meetings)
        firsts = dict(self.firsts)
        lateness = dict(self.lateness)
        for table in tables:
            for a, b in combinations(table, 2):
                key = (a, b) if a < b else (b, a)
                meetings[key] = meetings.get(key, 0) + 1
            if len(table) > 1:
                firsts[table[0]] = firsts.get(table[0], 0) + 1
                for seat, bot in enumerate(table):
                    lateness[bot] = lateness.get(bot, 0.0) + seat / (len(table) - 1)
        return History(meetings, firsts, lateness)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round: tables in standing order, each listing its bots in seat order, and the byes."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]


def pair_round(
    entrants: Sequence[Entrant],
    history: History,
    table_size: int,
    allowed_sizes: Iterable[int],
    seed: int,
    round_no: int,
) -> Pairing:
    """Seat every entrant at a table of the round's plan (`plan_tables`) or give it a bye."""
    if len({e.bot for e in entrants}) != len(entrants):
        raise ValueError("an entrant is listed twice")
    plan = plan_tables(len(entrants), table_size, allowed_sizes)
    salt = {e.bot: _salt(seed, round_no, e.bot) for e in entrants}
    order = sorted(entrants, key=lambda e: (*rank_key(e), salt[e.bot]))
    field_ = _Field(order, history, table_size)
    groups = field_.fold(plan)
    if len(order) <= _EXACT_LIMIT:
        solved = field_.search(groups, None)
        groups = groups if solved is None else solved
    else:
        groups = field_.seat_large(groups, plan, seed ^ round_no)
    tables = sorted((members for kind, members in groups if kind != _Kind.BYE), key=min)
    bye_members = [m for kind, members in groups if kind == _Kind.BYE for m in members]
    return Pairing(
        tables=tuple(_seat_order([order[i].bot for i in t], history, salt) for t in tables),
        byes=tuple(order[i].bot for i in sorted(bye_members)),
    )


def _salt(seed: int, round_no: int, bot: int) -> int:
    digest = hashlib.blake2b(f"{seed}:{round_no}:{bot}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _seat_order(bots: list[int], history: History, salt: Mapping[int, int]) -> tuple[int, ...]:
    # Fewest first seats sits first; then whoever has sat furthest back so far moves forward.
    def key(bot: int) -> tuple[int, float, int]:
        return (history.firsts.get(bot, 0), -history.lateness.get(bot, 0.0), salt[bot])

    return tuple(sorted(bots, key=key))


def _add(a: _Cost, b: _Cost) -> _Cost:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4])


def _units(score: Fraction | float) -> int:
    # Exact for match points; any other value (hand-made entrants) is compared to 1/120 point.
    return round(Fraction(score) * _UNITS)


# (kind, positions in the standing order, ascending)
_Group = tuple[_Kind, list[int]]


class _Field:
    """The ordered entrants of one round, addressed by standing position, and their costs."""

    def __init__(self, order: list[Entrant], history: History, table_size: int) -> None:
        self.size = len(order)
        self.table_size = table_size
        self.score = [_units(e.score) for e in order]
        self.disadvantaged = [e.byes + e.short_tables for e in order]
        position = {e.bot: i for i, e in enumerate(order)}
        # Only meetings between present entrants matter; index them by position for speed.
        self.met: list[dict[int, int]] = [{} for _ in order]
        for (a, b), times in history.meetings.items():
            i, j = position.get(a), position.get(b)
            if i is not None and j is not None and times:
                self.met[i][j] = self.met[j][i] = times
        self.nodes = 0

    def cost(self, kind: _Kind, members: list[int]) -> _Cost:
        """The cost of one group; `members` are ascending positions."""
        low = self.size - 1
        if kind == _Kind.BYE:
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
        if kind == _Kind.SHORT:
            unfair = sum(1 for i in members if self.disadvantaged[i])
            return (repeats, unfair, spread, sum(low - i for i in members), width)
        return (repeats, 0, spread, 0, width)

    def total(self, groups: list[_Group]) -> _Cost:
        """The summed cost of a partition."""
        out = _ZERO
        for kind, members in groups:
            out = _add(out, self.cost(kind, members))
        return out

    def fold(self, plan: TablePlan) -> list[_Group]:
        """A first partition: byes and short seats, then a greedy fold that skips past meetings."""
        want = plan.byes + sum(plan.short)
        # Fewest earlier byes or short tables first, then lowest in the standings.
        reserve = sorted(range(self.size), key=lambda i: (self.disadvantaged[i], -i))[:want]
        bye_set = sorted(reserve[: plan.byes])
        short_set = set(reserve[plan.byes :])
        taken = set(reserve)
        main = [i for i in range(self.size) if i not in taken]
        groups = [(_Kind.FULL, g) for g in self._greedy(main, [plan.table_size] * plan.full)]
        groups += [(_Kind.SHORT, g) for g in self._greedy(sorted(short_set), list(plan.short))]
        if bye_set:
            groups.append((_Kind.BYE, bye_set))
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

    def seat_large(self, groups: list[_Group], plan: TablePlan, seed: int) -> list[_Group]:
        """Repair the fold; if a repeat is left, search for a rematch-free seating and polish it;
        failing that, spend the rest of the repair budget on fewer repeats."""
        has_byes = any(kind == _Kind.BYE for kind, _ in groups)
        bound = 0 if has_byes else repeat_lower_bound(self.met, min(plan.sizes))
        self.nodes = 0
        repeats, unfair = self.total(groups)[:2]
        if repeats > bound or unfair:
            groups = self.repair(groups, bound, _QUICK_REPAIR)
            repeats, unfair = self.total(groups)[:2]
        want = plan.byes + sum(plan.short)
        fair_bound = max(0, want - sum(1 for d in self.disadvantaged if d == 0))
        if ((repeats > 0 and bound == 0) or unfair > fair_bound) and self.size <= _FREE_LIMIT:
            free = self._rematch_free(groups, plan, seed, fair_only=repeats == 0)
            if free is not None:
                free = self.polish(free)
                if self.total(free) < self.total(groups):
                    return free
        if repeats > bound or unfair:
            groups = self.repair(groups, bound, _REPAIR_BUDGET)
        return groups

    def _rematch_free(
        self, groups: list[_Group], plan: TablePlan, seed: int, fair_only: bool
    ) -> list[_Group] | None:
        slots: Counter[Slot] = Counter(
            (int(kind), len(m)) for kind, m in groups if kind != _Kind.BYE
        )
        want = plan.byes + sum(plan.short)
        fresh = [d == 0 for d in self.disadvantaged]
        # First with short seats and byes only for those who have had none, then without.
        tries: list[list[bool] | None] = [fresh, None] if sum(fresh) >= want else [None]
        if fair_only:
            tries = tries[:1] if sum(fresh) >= want else []
        for eligible in tries:
            verdict = find_rematch_free(
                self.met,
                slots,
                plan.byes,
                frozenset({int(_Kind.SHORT)}),
                eligible,
                _FREE_BUDGET,
                # Fairness alone (no repeat at stake) is worth a shorter search.
                1 if fair_only else _FREE_RESTARTS,
                seed,
                _FREE_WORK // self.size,
            )
            if verdict.seating is not None:
                seating = verdict.seating
                found: list[_Group] = [(_Kind(slot[0]), list(m)) for slot, m in seating.tables]
                if seating.sitting_out:
                    found.append((_Kind.BYE, list(seating.sitting_out)))
                return found
        return None

    def polish(self, groups: list[_Group]) -> list[_Group]:
        """Swap players between nearby groups while a swap lowers the pair's cost."""
        groups = sorted(groups, key=lambda g: sum(g[1]) / len(g[1]))
        costs = [self.cost(*g) for g in groups]
        for _ in range(_POLISH_PASSES):
            improved = False
            for g in range(len(groups)):
                for other in range(g + 1, min(len(groups), g + 1 + _POLISH_REACH)):
                    if self._swap(groups, costs, g, other):
                        improved = True
            if not improved:
                break
        return groups

    def _swap(self, groups: list[_Group], costs: list[_Cost], g: int, h: int) -> bool:
        """The best single swap of a player of group `g` with one of group `h`, if it helps."""
        (kind_g, mine), (kind_h, theirs) = groups[g], groups[h]
        now = _add(costs[g], costs[h])
        best: tuple[_Cost, list[int], list[int], _Cost, _Cost] | None = None
        for a in mine:
            rest_g = [m for m in mine if m != a]
            for b in theirs:
                new_g = sorted([*rest_g, b])
                cost_g = self.cost(kind_g, new_g)
                if cost_g[0] > now[0]:
                    continue
                new_h = sorted([*(m for m in theirs if m != b), a])
                cost_h = self.cost(kind_h, new_h)
                total = _add(cost_g, cost_h)
                if total < now and (best is None or total < best[0]):
                    best = (total, new_g, new_h, cost_g, cost_h)
        if best is None:
            return False
        _, new_g, new_h, costs[g], costs[h] = best
        groups[g], groups[h] = (kind_g, new_g), (kind_h, new_h)
        return True

    def repair(self, groups: list[_Group], bound: int, budget: int) -> list[_Group]:
        """Re-solve each group that has a repeat or an unfair seat together with nearby groups,
        until the repeats reach `bound` or the round has spent `budget` search nodes."""
        costs = [self.cost(kind, members) for kind, members in groups]
        for _ in range(_REPAIR_PASSES):
            improved = False
            for g in range(len(groups)):
                for block in self._blocks(groups, g):
                    if costs[g][0] == 0 and costs[g][1] == 0:
                        break
                    if self.nodes > budget:
                        return groups
                    if sum(c[0] for c in costs) <= bound and not any(c[1] for c in costs):
                        return groups  # no fewer repeats are possible
                    solved = self.search([groups[b] for b in block], _BLOCK_BUDGET)
                    if solved is not None:
                        for b, group in zip(block, solved, strict=True):
                            groups[b] = group
                            costs[b] = self.cost(*group)
                        improved = True
            if not improved:
                break
        return groups

    def _blocks(self, groups: list[_Group], g: int) -> Iterator[list[int]]:
        """_Group `g` with its neighbours up to `_BLOCK_PLAYERS` players, then with each group
        within `_REACH`, nearest first: a repeat the neighbours cannot absorb is often undone
        by one swap with a group a little further away."""
        lo, hi = g, g + 1
        players = len(groups[g][1])
        grown = True
        while grown:
            grown = False
            for other in (hi, lo - 1):
                if not (0 <= other < len(groups)) or lo <= other < hi:
                    continue
                if players + len(groups[other][1]) <= _BLOCK_PLAYERS or hi - lo == 1:
                    players += len(groups[other][1])
                    lo, hi = min(lo, other), max(hi, other + 1)
                    grown = True
        yield list(range(lo, hi))
        for distance in range(1, _REACH + 1):
            for other in (g - distance, g + distance):
                if 0 <= other < len(groups) and not lo <= other < hi:
                    yield sorted((g, other))

    def search(self, groups: list[_Group], budget: int | None) -> list[_Group] | None:
        """Branch and bound over every partition of the groups' players into groups of the same
        kinds and sizes; the best one strictly cheaper than the current one, or None."""
        best_cost = self.total(groups)
        best: list[_Group] | None = None
        left = Counter((kind, len(members)) for kind, members in groups)
        chosen: list[_Group] = []
        nodes = 0

        def descend(rest: list[int], spent: _Cost) -> None:
            nonlocal best, best_cost, nodes
            if not rest:
                best, best_cost = list(chosen), spent
                return
            # The first player left must sit somewhere: branch on its group and tablemates.
            anchor, others = rest[0], rest[1:]
            for kind, size in sorted(k for k, n in left.items() if n):
                for picks in combinations(range(len(others)), size - 1):
                    nodes += 1
                    if budget is not None and nodes > budget:
                        return
                    members = [anchor, *(others[p] for p in picks)]
                    total = _add(spent, self.cost(kind, members))
                    # Every term is >= 0, so a partial cost bounds every completion from below.
                    if total >= best_cost:
                        continue
                    taken = set(picks)
                    left[(kind, size)] -= 1
                    chosen.append((kind, members))
                    descend([p for n, p in enumerate(others) if n not in taken], total)
                    chosen.pop()
                    left[(kind, size)] += 1

        descend(sorted(m for _, members in groups for m in members), _ZERO)
        self.nodes += nodes
        return best
