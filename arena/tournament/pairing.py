"""Swiss pairing for tables of 2-6 seats: meeting history and `pair_round`."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from arena.tournament.field import Field, Kind
from arena.tournament.seating import search, seat_large
from arena.tournament.standings import (
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
# repeat is left, an exact cover over the listed tables of mutual strangers (cover.py), or in a
# dense field a most-constrained-first search (rematch.py), decides whether a rematch-free
# seating exists; when it finds one, pairwise re-solving of nearby tables brings
# the score spread back down without letting a repeat in. When repeats are provably unavoidable
# (a lower bound is met, or the search proved no rematch-free seating exists), it stops.

# Fields up to this size are partitioned exactly, with no node budget.
_EXACT_LIMIT = 12


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
    field_ = Field(order, history.meetings, table_size)
    groups = field_.fold(plan)
    if len(order) <= _EXACT_LIMIT:
        solved = search(field_, groups, None)
        groups = groups if solved is None else solved
    else:
        groups = seat_large(field_, groups, plan, seed ^ round_no)
    tables = sorted((members for kind, members in groups if kind != Kind.BYE), key=min)
    bye_members = [m for kind, members in groups if kind == Kind.BYE for m in members]
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
