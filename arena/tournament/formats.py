"""Tournament formats (Swiss, round-robin), rating systems, and the default number of rounds."""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import replace
from fractions import Fraction

import engines
from arena.storage.tournaments import Format, RatingSystem
from arena.tournament.pairing import Entrant, History, Pairing, pair_round
from engines import Rules

# The enums are stored values, so they live with the rows; they are part of this module's API.
__all__ = [
    "Format",
    "RatingSystem",
    "default_rounds",
    "pair_round_robin",
    "parse_format",
    "parse_rating_system",
    "round_robin_rounds",
    "table_rules",
]


def parse_format(value: str) -> Format:
    """`value` as a `Format`, or a `ValueError` listing the formats."""
    try:
        return Format(value or Format.SWISS)
    except ValueError:
        raise ValueError(
            f"unknown format {value!r}; choose one of {[f.value for f in Format]}"
        ) from None


def parse_rating_system(value: str) -> RatingSystem:
    """`value` as a `RatingSystem`, or a `ValueError` listing the systems."""
    try:
        return RatingSystem(value or RatingSystem.ELO)
    except ValueError:
        raise ValueError(
            f"unknown rating system {value!r}; choose one of {[r.value for r in RatingSystem]}"
        ) from None


def round_robin_rounds(entrants: int, table_size: int) -> int:
    """Rounds in which every entrant can meet every other once: ceil((n - 1) / (seats - 1))."""
    return max(1, math.ceil((entrants - 1) / (table_size - 1)))


def default_rounds(entrants: int, table_size: int, format_: Format) -> int:
    """Rounds when the organiser gives none.

    Round-robin: `round_robin_rounds`. Swiss: enough rounds for one table winner to stand alone
    if winners kept meeting (ceil(log_seats(n))) plus two to sort the places behind, at least 3,
    and never more than a round-robin would need.
    """
    full = round_robin_rounds(entrants, table_size)
    if format_ == Format.ROUND_ROBIN:
        return full
    if entrants <= table_size:
        return min(3, full) if entrants > 1 else 1
    swiss = math.ceil(math.log(entrants) / math.log(table_size) - 1e-9) + 2
    return max(1, min(full, max(3, swiss)))


def pair_round_robin(
    entrants: Sequence[Entrant],
    history: History,
    table_size: int,
    allowed_sizes: Iterable[int],
    seed: int,
    round_no: int,
) -> Pairing:
    """A round-robin round. At two seats the circle method (every pair meets once in n - 1
    rounds, an odd field giving one bye a round); at more seats, or when a withdrawal or late
    entry has broken the circle, the Swiss pairing with every score equal, so only the meetings
    so far (fewest repeats, then the rarest pairs) and short seats decide the tables."""
    if table_size == 2:
        circle = _circle_round(sorted(e.bot for e in entrants), seed, round_no)
        if not any(history.times_met(a, b) for a, b in circle.tables) or round_no > len(entrants):
            return circle
    level = [replace(e, score=Fraction(0), tiebreak=Fraction(0), rating=0.0) for e in entrants]
    return pair_round(level, history, table_size, allowed_sizes, seed, round_no)


def _circle_round(bots: list[int], seed: int, round_no: int) -> Pairing:
    """Round `round_no` (from 1) of the circle method over `bots`, shuffled by `seed`."""
    order: list[int | None] = list(bots)
    random.Random(seed).shuffle(order)
    if len(order) % 2:
        order.append(None)  # whoever meets None has the bye
    n = len(order)
    turn = (round_no - 1) % max(1, n - 1)
    rest = order[1:]
    rest = rest[turn:] + rest[:turn]
    ring = [order[0], *rest]
    tables: list[tuple[int, ...]] = []
    byes: list[int] = []
    for i in range(n // 2):
        a, b = ring[i], ring[n - 1 - i]
        if a is None or b is None:
            byes.extend(x for x in (a, b) if x is not None)
        else:
            tables.append((a, b) if (i + round_no) % 2 else (b, a))
    return Pairing(tuple(tables), tuple(byes))


def table_rules(game: str, table_size: int) -> Rules[object, object, object]:
    """The rules of `game` if `table_size` is one of its seat counts; `ValueError` if not."""
    rules: Rules[object, object, object] = engines.get(game)
    if table_size not in rules.seat_counts:
        raise ValueError(
            f"table size {table_size} is not a seat count of {game} {list(rules.seat_counts)}"
        )
    return rules
