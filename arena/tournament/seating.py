"""Improving a round's first fold: block repairs by branch and bound, the rematch-free search
(arena/tournament/rematch.py) and the swaps that bring the score spread back down after it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations

from arena.tournament.field import ZERO, Cost, Field, Group, Kind, add_costs
from arena.tournament.rematch import Slot, find_rematch_free, repeat_lower_bound
from arena.tournament.table_plan import TablePlan

# Players re-solved together around a table that still has a repeat or an unfair short seat.
_BLOCK_PLAYERS = 12
# Search nodes per block: bounds the time of a pathological block, keeping the best found.
_BLOCK_BUDGET = 4_000
# Search nodes for all the repairs of one round together, and for the quick first repair.
_REPAIR_BUDGET = 6_000
_QUICK_REPAIR = 1_500
_REPAIR_PASSES = 3
# How many groups away, in the fold's order, a group with a repeat looks for a swap.
_REACH = 16
# The rematch-free search: nodes per attempt, restarts, and the most players searched together.
# The first attempt, the one that can prove that no seating exists, gets about
# _FREE_WORK / players nodes (a node costs time in proportion to the players); the fallback
# question (short seats for anyone) gets the plain budget.
_FREE_BUDGET = 1_000
_FREE_WORK = 60_000
_FREE_RESTARTS = 3
_FREE_LIMIT = 400
# The exact cover over listed tables that decides first (arena/tournament/cover.py): its work
# (live tables visited, about a microsecond each) for the first question, and at least for the
# fallback, and the most tables it lists (a denser stranger graph is left to the table-by-table
# search, which finds seatings there at once).
_COVER_BUDGET = 50_000
_COVER_FALLBACK_BUDGET = 16_000
_COVER_TABLES = 3_000
# Passes of pairwise swaps that bring the score spread down after that search.
_POLISH_PASSES = 3
_POLISH_REACH = 3


def seat_large(field: Field, groups: list[Group], plan: TablePlan, seed: int) -> list[Group]:
    """Repair the fold; if a repeat is left, search for a rematch-free seating and polish it;
    failing that, spend the rest of the repair budget on fewer repeats."""
    has_byes = any(kind == Kind.BYE for kind, _ in groups)
    bound = 0 if has_byes else repeat_lower_bound(field.met, min(plan.sizes))
    field.nodes = 0
    repeats, unfair = field.total(groups)[:2]
    if repeats > bound or unfair:
        groups = repair(field, groups, bound, _QUICK_REPAIR)
        repeats, unfair = field.total(groups)[:2]
    want = plan.byes + sum(plan.short)
    fair_bound = max(0, want - sum(1 for d in field.disadvantaged if d == 0))
    if ((repeats > 0 and bound == 0) or unfair > fair_bound) and field.size <= _FREE_LIMIT:
        free = _rematch_free(field, groups, plan, seed, fair_only=repeats == 0)
        if free is not None:
            free = polish(field, free)
            if field.total(free) < field.total(groups):
                return free
    if repeats > bound or unfair:
        groups = repair(field, groups, bound, _REPAIR_BUDGET)
    return groups


def _rematch_free(
    field: Field, groups: list[Group], plan: TablePlan, seed: int, fair_only: bool
) -> list[Group] | None:
    slots: Counter[Slot] = Counter((int(kind), len(m)) for kind, m in groups if kind != Kind.BYE)
    want = plan.byes + sum(plan.short)
    fresh = [d == 0 for d in field.disadvantaged]
    # First with short seats and byes only for those who have had none, then without.
    tries: list[list[bool] | None] = [fresh, None] if sum(fresh) >= want else [None]
    if fair_only:
        tries = tries[:1] if sum(fresh) >= want else []
    # The cover's work is shared: the fallback question gets what the first one left over, up to
    # the first one's budget (most first questions are decided within a few thousand), so the
    # round's total stays bounded.
    cover_left = _COVER_BUDGET + _COVER_FALLBACK_BUDGET
    for attempt, eligible in enumerate(tries):
        verdict = find_rematch_free(
            field.met,
            slots,
            plan.byes,
            frozenset({int(Kind.SHORT)}),
            eligible,
            _FREE_BUDGET,
            # Fairness alone (no repeat at stake) is worth a shorter search.
            1 if fair_only else _FREE_RESTARTS,
            seed,
            # Only the first question gets the long proving attempt: the pairing's time is bounded.
            _FREE_WORK // field.size if attempt == 0 else 0,
            max(0, min(_COVER_BUDGET, cover_left)),
            _COVER_TABLES,
        )
        cover_left -= verdict.cover_work
        if verdict.seating is not None:
            seating = verdict.seating
            found: list[Group] = [(Kind(slot[0]), list(m)) for slot, m in seating.tables]
            if seating.sitting_out:
                found.append((Kind.BYE, list(seating.sitting_out)))
            return found
    return None


def polish(field: Field, groups: list[Group]) -> list[Group]:
    """Swap players between nearby groups while a swap lowers the pair's cost."""
    groups = sorted(groups, key=lambda g: sum(g[1]) / len(g[1]))
    costs = [field.cost(*g) for g in groups]
    for _ in range(_POLISH_PASSES):
        improved = False
        for g in range(len(groups)):
            for other in range(g + 1, min(len(groups), g + 1 + _POLISH_REACH)):
                if _swap(field, groups, costs, g, other):
                    improved = True
        if not improved:
            break
    return groups


def _swap(field: Field, groups: list[Group], costs: list[Cost], g: int, h: int) -> bool:
    """The best single swap of a player of group `g` with one of group `h`, if it helps."""
    (kind_g, mine), (kind_h, theirs) = groups[g], groups[h]
    now = add_costs(costs[g], costs[h])
    best: tuple[Cost, list[int], list[int], Cost, Cost] | None = None
    for a in mine:
        rest_g = [m for m in mine if m != a]
        for b in theirs:
            new_g = sorted([*rest_g, b])
            cost_g = field.cost(kind_g, new_g)
            if cost_g[0] > now[0]:
                continue
            new_h = sorted([*(m for m in theirs if m != b), a])
            cost_h = field.cost(kind_h, new_h)
            total = add_costs(cost_g, cost_h)
            if total < now and (best is None or total < best[0]):
                best = (total, new_g, new_h, cost_g, cost_h)
    if best is None:
        return False
    _, new_g, new_h, costs[g], costs[h] = best
    groups[g], groups[h] = (kind_g, new_g), (kind_h, new_h)
    return True


def repair(field: Field, groups: list[Group], bound: int, budget: int) -> list[Group]:
    """Re-solve each group that has a repeat or an unfair seat together with nearby groups,
    until the repeats reach `bound` or the round has spent `budget` search nodes."""
    costs = [field.cost(kind, members) for kind, members in groups]
    for _ in range(_REPAIR_PASSES):
        improved = False
        for g in range(len(groups)):
            for block in _blocks(field, groups, g):
                if costs[g][0] == 0 and costs[g][1] == 0:
                    break
                if field.nodes > budget:
                    return groups
                if sum(c[0] for c in costs) <= bound and not any(c[1] for c in costs):
                    return groups  # no fewer repeats are possible
                solved = search(field, [groups[b] for b in block], _BLOCK_BUDGET)
                if solved is not None:
                    for b, group in zip(block, solved, strict=True):
                        groups[b] = group
                        costs[b] = field.cost(*group)
                    improved = True
        if not improved:
            break
    return groups


def _blocks(field: Field, groups: list[Group], g: int) -> Iterator[list[int]]:
    """Group `g` with its neighbours up to `_BLOCK_PLAYERS` players, then with each group
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


def search(field: Field, groups: list[Group], budget: int | None) -> list[Group] | None:
    """Branch and bound over every partition of the groups' players into groups of the same
    kinds and sizes; the best one strictly cheaper than the current one, or None."""
    best_cost = field.total(groups)
    best: list[Group] | None = None
    left = Counter((kind, len(members)) for kind, members in groups)
    chosen: list[Group] = []
    nodes = 0

    def descend(rest: list[int], spent: Cost) -> None:
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
                total = add_costs(spent, field.cost(kind, members))
                # Every term is >= 0, so a partial cost bounds every completion from below.
                if total >= best_cost:
                    continue
                taken = set(picks)
                left[(kind, size)] -= 1
                chosen.append((kind, members))
                descend([p for n, p in enumerate(others) if n not in taken], total)
                chosen.pop()
                left[(kind, size)] += 1

    descend(sorted(m for _, members in groups for m in members), ZERO)
    field.nodes += nodes
    return best
