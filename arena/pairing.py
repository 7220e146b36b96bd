"""Swiss pairing for tables of 2-6 seats: match points, standings, history and `pair_round`."""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from itertools import combinations

from arena.ratings import DEFAULT_RATING

# `pair_round` orders the entrants by score, tie-break, rating and a hash of (seed, round, bot),
# then partitions them into tables minimising, in this order: repeat meetings, byes or short
# tables for players who already had one, score spread within a table, and then, so that byes
# and short tables go low and tables stay compact, standing position. Small fields are solved
# exactly by branch and bound. Large fields are folded greedily, then each group that still has a
# repeat or an unfair seat is re-solved exactly with its neighbours (at most `_BLOCK_PLAYERS`
# players), then with single groups a little further away: fast because such groups are rare.

# Fields up to this size are partitioned exactly, with no node budget.
_EXACT_LIMIT = 12
# Players re-solved together around a table that still has a repeat or an unfair short seat.
_BLOCK_PLAYERS = 12
# Search nodes per block: bounds the time of a pathological block, keeping the best found.
_BLOCK_BUDGET = 20_000
# How far down the standings the greedy fold looks for a player not met yet.
_WINDOW = 24
_REPAIR_PASSES = 3
# How many groups away, in the fold's order, a group with a repeat looks for a swap.
_REACH = 16
# Scores are compared in millionths of a point so float noise cannot split a tie.
_QUANTUM = 1_000_000


class _Kind(IntEnum):
    """What a group of players is this round."""

    FULL = 0
    SHORT = 1
    BYE = 2


# (repeats, unfair short tables or byes, score spread, height of byes and short tables, width)
_Cost = tuple[int, int, int, int, int]
_ZERO: _Cost = (0, 0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class Entrant:
    """One bot's standing before a round."""

    bot: int
    score: float
    tiebreak: float
    rating: float
    byes: int = 0
    short_tables: int = 0


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


@dataclass(frozen=True, slots=True)
class TableResult:
    """A finished table: its bots in seat order and their ranks (lower is better, ties share)."""

    bots: tuple[int, ...]
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: the organiser's table size, the finished tables and the byes."""

    table_size: int
    tables: tuple[TableResult, ...]
    byes: tuple[int, ...] = ()


def match_points(ranks: Sequence[int]) -> tuple[float, ...]:
    """Points per seat: 1 for first to 0 for last, linear; tied seats share their places' mean."""
    seats = len(ranks)
    if seats < 2:
        raise ValueError(f"match points need at least two seats, got {seats}")
    counts = Counter(ranks)
    start: dict[int, int] = {}
    place = 0
    for rank in sorted(counts):
        start[rank] = place
        place += counts[rank]
    # The mean of the linear points over places start .. start + count - 1 is the points of
    # the middle place.
    return tuple(
        (seats - 1 - (start[rank] + (counts[rank] - 1) / 2)) / (seats - 1) for rank in ranks
    )


def bye_points(table_size: int) -> float:
    """Points for a bye: the average points of a table of `table_size` seats."""
    return math.fsum(match_points(range(table_size))) / table_size


def standings(
    bots: Iterable[int], rounds: Iterable[RoundResult], ratings: Mapping[int, float]
) -> tuple[Entrant, ...]:
    """Entrants ordered by score, opponents' average score (Buchholz-style), rating and bot id."""
    score: defaultdict[int, float] = defaultdict(float)
    opponents: defaultdict[int, list[int]] = defaultdict(list)
    byes: Counter[int] = Counter()
    short: Counter[int] = Counter()
    for result in rounds:
        for table in result.tables:
            for bot, points in zip(table.bots, match_points(table.ranks), strict=True):
                score[bot] += points
                opponents[bot].extend(other for other in table.bots if other != bot)
                if len(table.bots) < result.table_size:
                    short[bot] += 1
        for bot in result.byes:
            score[bot] += bye_points(result.table_size)
            byes[bot] += 1
    entrants = [
        Entrant(
            bot=bot,
            score=score[bot],
            tiebreak=_mean([score[other] for other in opponents[bot]]),
            rating=ratings.get(bot, DEFAULT_RATING),
            byes=byes[bot],
            short_tables=short[bot],
        )
        for bot in dict.fromkeys(bots)
    ]
    return tuple(sorted(entrants, key=lambda e: (*_rank_key(e), e.bot)))


def plan_tables(count: int, table_size: int, allowed_sizes: Iterable[int]) -> tuple[int, int, int]:
    """(full tables, tables one seat short, byes) for `count` players at `table_size` seats."""
    allowed = set(allowed_sizes)
    if table_size < 2 or table_size not in allowed:
        raise ValueError(f"table size {table_size} is not one of the allowed sizes {allowed}")
    tables, rest = divmod(count, table_size)
    if rest == 0:
        return tables, 0, 0
    short = table_size - rest
    # A single-seat "table" is no game: that case falls through to byes.
    if table_size - 1 >= 2 and table_size - 1 in allowed and short <= tables + 1:
        return tables + 1 - short, short, 0
    return tables, 0, rest


def pair_round(
    entrants: Sequence[Entrant],
    history: History,
    table_size: int,
    allowed_sizes: Iterable[int],
    seed: int,
    round_no: int,
) -> Pairing:
    """Seat every entrant at a table of `table_size` (or one short) or give it a bye."""
    if len({e.bot for e in entrants}) != len(entrants):
        raise ValueError("an entrant is listed twice")
    full, short, byes = plan_tables(len(entrants), table_size, allowed_sizes)
    salt = {e.bot: _salt(seed, round_no, e.bot) for e in entrants}
    order = sorted(entrants, key=lambda e: (*_rank_key(e), salt[e.bot]))
    field_ = _Field(
        order, history, {_Kind.FULL: table_size, _Kind.SHORT: table_size - 1, _Kind.BYE: byes}
    )
    groups = field_.fold(full, short, byes)
    groups = field_.repair(groups, exact=len(order) <= _EXACT_LIMIT)
    tables = sorted((members for kind, members in groups if kind != _Kind.BYE), key=min)
    bye_members = [m for kind, members in groups if kind == _Kind.BYE for m in members]
    return Pairing(
        tables=tuple(_seat_order([order[i].bot for i in t], history, salt) for t in tables),
        byes=tuple(order[i].bot for i in sorted(bye_members)),
    )


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def _rank_key(entrant: Entrant) -> tuple[int, int, float]:
    return (-round(entrant.score * _QUANTUM), -round(entrant.tiebreak * _QUANTUM), -entrant.rating)


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


# (kind, positions in the standing order, ascending)
_Group = tuple[_Kind, list[int]]


class _Field:
    """The ordered entrants of one round, addressed by standing position, and their costs."""

    def __init__(self, order: list[Entrant], history: History, sizes: dict[_Kind, int]) -> None:
        self.size = len(order)
        self.sizes = sizes
        self.score = [round(e.score * _QUANTUM) for e in order]
        self.disadvantaged = [e.byes + e.short_tables for e in order]
        position = {e.bot: i for i, e in enumerate(order)}
        # Only meetings between present entrants matter; index them by position for speed.
        self.met: list[dict[int, int]] = [{} for _ in order]
        for (a, b), times in history.meetings.items():
            i, j = position.get(a), position.get(b)
            if i is not None and j is not None and times:
                self.met[i][j] = self.met[j][i] = times

    def cost(self, kind: _Kind, members: list[int]) -> _Cost:
        """The cost of one group; `members` are ascending positions."""
        low = self.size - 1
        if kind == _Kind.BYE:
            unfair = sum(1 for i in members if self.disadvantaged[i])
            return (0, unfair, 0, sum(low - i for i in members), 0)
        met = self.met
        repeats = sum(met[a].get(b, 0) for a, b in combinations(members, 2))
        spread = self.score[members[0]] - self.score[members[-1]]
        width = members[-1] - members[0]
        if kind == _Kind.SHORT:
            unfair = sum(1 for i in members if self.disadvantaged[i])
            return (repeats, unfair, spread, sum(low - i for i in members), width)
        return (repeats, 0, spread, 0, width)

    def fold(self, full: int, short: int, byes: int) -> list[_Group]:
        """A first partition: byes and short seats, then a greedy fold that skips past meetings."""
        want = byes + short * self.sizes[_Kind.SHORT]
        # Fewest earlier byes or short tables first, then lowest in the standings.
        reserve = sorted(range(self.size), key=lambda i: (self.disadvantaged[i], -i))[:want]
        bye_set = sorted(reserve[:byes])
        short_set = set(reserve[byes:])
        taken = set(reserve)
        main = [i for i in range(self.size) if i not in taken]
        groups = [(_Kind.FULL, g) for g in self._greedy(main, self.sizes[_Kind.FULL])]
        groups += [
            (_Kind.SHORT, g) for g in self._greedy(sorted(short_set), self.sizes[_Kind.SHORT])
        ]
        if bye_set:
            groups.append((_Kind.BYE, bye_set))
        assert len(groups) == full + short + (1 if byes else 0)
        return groups

    def _greedy(self, pool: list[int], size: int) -> list[list[int]]:
        rest = pool[::-1]  # the next player is at the end, so taking it is cheap
        groups: list[list[int]] = []
        while rest:
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

    def repair(self, groups: list[_Group], exact: bool) -> list[_Group]:
        """Re-solve each group that has a repeat or an unfair seat together with nearby groups."""
        if exact:
            solved = self._search(groups, None)
            return groups if solved is None else solved
        costs = [self.cost(kind, members) for kind, members in groups]
        for _ in range(_REPAIR_PASSES):
            improved = False
            for g in range(len(groups)):
                for block in self._blocks(groups, g):
                    if costs[g][0] == 0 and costs[g][1] == 0:
                        break
                    solved = self._search([groups[b] for b in block], _BLOCK_BUDGET)
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

    def _search(self, groups: list[_Group], budget: int | None) -> list[_Group] | None:
        """Branch and bound over every partition of the groups' players into the same kinds of
        group; the best one strictly cheaper than the current one, or None."""
        best_cost = _ZERO
        for kind, members in groups:
            best_cost = _add(best_cost, self.cost(kind, members))
        best: list[_Group] | None = None
        left = Counter(kind for kind, _ in groups)
        chosen: list[_Group] = []
        nodes = 0

        def descend(rest: list[int], spent: _Cost) -> None:
            nonlocal best, best_cost, nodes
            if not rest:
                best, best_cost = list(chosen), spent
                return
            # The first player left must sit somewhere: branch on its group and tablemates.
            anchor, others = rest[0], rest[1:]
            for kind in sorted(k for k, n in left.items() if n):
                for picks in combinations(range(len(others)), self.sizes[kind] - 1):
                    nodes += 1
                    if budget is not None and nodes > budget:
                        return
                    members = [anchor, *(others[p] for p in picks)]
                    total = _add(spent, self.cost(kind, members))
                    # Every term is >= 0, so a partial cost bounds every completion from below.
                    if total >= best_cost:
                        continue
                    taken = set(picks)
                    left[kind] -= 1
                    chosen.append((kind, members))
                    descend([p for n, p in enumerate(others) if n not in taken], total)
                    chosen.pop()
                    left[kind] += 1

        descend(sorted(m for _, members in groups for m in members), _ZERO)
        return best
