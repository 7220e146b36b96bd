"""Exact Swiss standings: match points, byes and the opponents'-score tie-break as fractions.

Points are `Fraction`s, never floats, so two equal scores always compare equal and the tie-break
decides between them. Every point value of a table of 2-6 seats (ties included) is a whole number
of `POINT_UNITS`-ths of a point, which is how they are stored in SQL (`standings.points`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from arena.tournament.ratings import DEFAULT_RATING

# lcm(2 * (seats - 1)) over seats 2..6: a tied group's mean place needs the factor 2.
POINT_UNITS = 120


@dataclass(frozen=True, slots=True)
class Entrant:
    """One bot's standing before a round."""

    bot: int
    score: Fraction
    tiebreak: Fraction
    rating: float
    byes: int = 0
    short_tables: int = 0


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


def match_points(ranks: Sequence[int]) -> tuple[Fraction, ...]:
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
        Fraction(2 * (seats - 1 - start[rank]) - (counts[rank] - 1), 2 * (seats - 1))
        for rank in ranks
    )


def bye_points(table_size: int) -> Fraction:
    """Points for a bye: the average points of a table of `table_size` seats (always 1/2)."""
    return sum(match_points(range(table_size)), Fraction(0)) / table_size


def to_units(points: Fraction) -> int:
    """`points` as a whole number of 1/`POINT_UNITS` points; refuses a value that is not one."""
    units = points * POINT_UNITS
    if units.denominator != 1:
        raise ValueError(f"{points} is not a whole number of 1/{POINT_UNITS} points")
    return int(units)


def rank_key(entrant: Entrant) -> tuple[Fraction, Fraction, float]:
    """Sort key, best first: score, then tie-break, then rating (all descending)."""
    return (-entrant.score, -entrant.tiebreak, -entrant.rating)


def standings(
    bots: Iterable[int], rounds: Iterable[RoundResult], ratings: Mapping[int, float]
) -> tuple[Entrant, ...]:
    """Entrants ordered by score, opponents' average score (Buchholz-style), rating and bot id."""
    score: defaultdict[int, Fraction] = defaultdict(Fraction)
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
    return tuple(sorted(entrants, key=lambda e: (*rank_key(e), e.bot)))


def _mean(values: list[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values) if values else Fraction(0)
