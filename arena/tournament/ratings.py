"""Elo ratings per game, generalised to tables of any size by pairwise comparison of ranks."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

DEFAULT_RATING = 1500.0
DEFAULT_K = 32.0

_SCALE = 400.0

# Provisional K: a bot's first rated games move its rating faster, so a newcomer reaches its level
# in a few tables instead of dozens. (games already rated, K) steps: below 10 games K is 64, below
# 20 it is 48, then `DEFAULT_K`. A table of established bots stays zero-sum; a newcomer's larger K
# moves only its own rating further, never its opponents'.
PROVISIONAL_SCHEDULE: tuple[tuple[int, float], ...] = ((10, 64.0), (20, 48.0))

# Every pair of seats at a table is one game decided by their ranks (lower rank wins, equal ranks
# draw). A seat's change is the sum of its pairwise changes times 1/(seats - 1), so winning a
# table of N equals moves a rating as much as one two-player win, and every table is zero-sum.
# A tournament round is rated from the ratings before it (`rate_round`), so the order in which its
# tables finish cannot matter; an ad-hoc match is rated as it finishes (`rate_sequence`).


def expected_score(rating: float, opponent: float) -> float:
    """The textbook Elo expectation of `rating` against `opponent` (win 1, draw 1/2, loss 0)."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / _SCALE))


def provisional_k(games: int, k: float = DEFAULT_K) -> float:
    """The K of a bot that has `games` rated games so far (`PROVISIONAL_SCHEDULE`, then `k`)."""
    for below, provisional in PROVISIONAL_SCHEDULE:
        if games < below:
            return max(provisional, k)
    return k


def elo_deltas(
    ratings: Sequence[float], ranks: Sequence[int], k: float | Sequence[float] = DEFAULT_K
) -> tuple[float, ...]:
    """The rating change of each seat of one table, from its rating, its rank and its K (one K
    for every seat, or one per seat)."""
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    if not ratings:
        raise ValueError("a table needs at least one seat")
    ks = [float(k)] * len(ratings) if isinstance(k, int | float) else [float(x) for x in k]
    if len(ks) != len(ratings):
        raise ValueError(f"{len(ratings)} ratings but {len(ks)} K factors")
    for one in ks:
        if not math.isfinite(one) or one < 0:
            raise ValueError(f"K must be a finite number >= 0, got {one}")
    seats = len(ratings)
    if seats == 1:
        return (0.0,)
    gains: list[list[float]] = [[] for _ in range(seats)]
    for i in range(seats):
        for j in range(i + 1, seats):
            won = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
            # One evaluation per pair, from the lower rating's side, applied with opposite
            # signs: the table is zero-sum pair by pair and the result ignores seat order.
            if ratings[i] <= ratings[j]:
                gain = won - expected_score(ratings[i], ratings[j])
            else:
                gain = expected_score(ratings[j], ratings[i]) - (1.0 - won)
            gains[i].append(gain)
            gains[j].append(-gain)
    # fsum is correctly rounded, so the order of a seat's games cannot change its total.
    return tuple(one / (seats - 1) * math.fsum(seat) for one, seat in zip(ks, gains, strict=True))


def rate_match(
    ratings: Mapping[int, float],
    table: Sequence[tuple[int, int]],
    k: float = DEFAULT_K,
    games: Mapping[int, int] | None = None,
) -> dict[int, float]:
    """Bot id -> rating change for one match of (bot id, rank) seats; unknown bots start at 1500.
    With `games` (bot -> rated games so far), each bot's K follows `provisional_k`."""
    bots = [bot for bot, _ in table]
    if len(set(bots)) != len(bots):
        raise ValueError(f"a bot holds two seats at one table: {bots}")
    before = [ratings.get(bot, DEFAULT_RATING) for bot in bots]
    ks = [k] * len(bots) if games is None else [provisional_k(games.get(b, 0), k) for b in bots]
    deltas = elo_deltas(before, [rank for _, rank in table], ks)
    return dict(zip(bots, deltas, strict=True))


def rate_round(
    ratings: Mapping[int, float],
    tables: Sequence[Sequence[tuple[int, int]]],
    k: float = DEFAULT_K,
    games: Mapping[int, int] | None = None,
) -> dict[int, float]:
    """Bot id -> rating change for a whole round, every table rated from the pre-round ratings."""
    out: dict[int, float] = {}
    for table in tables:
        for bot, delta in rate_match(ratings, table, k, games).items():
            if bot in out:
                raise ValueError(f"bot {bot} is seated at two tables in one round")
            out[bot] = delta
    return out


def apply_deltas(ratings: Mapping[int, float], deltas: Mapping[int, float]) -> dict[int, float]:
    """New ratings: `ratings` plus `deltas`, a bot absent from `ratings` starting at 1500."""
    out = dict(ratings)
    for bot, delta in deltas.items():
        out[bot] = out.get(bot, DEFAULT_RATING) + delta
    return out


def rate_sequence(
    ratings: Mapping[int, float], matches: Iterable[Sequence[tuple[int, int]]], k: float = DEFAULT_K
) -> dict[int, float]:
    """New ratings after ad-hoc matches rated one after another, in the order they finished."""
    current = dict(ratings)
    for table in matches:
        current = apply_deltas(current, rate_match(current, table, k))
    return current


def elo_margin(games: int) -> float | None:
    """The half-width of a rough 95% interval of an Elo rating after `games` matches.

    As if each match were one comparison with an equal opponent: the score's standard error
    0.5 / sqrt(n) through the slope of the Elo curve at even odds, 400 / (ln 10 * 0.25), gives
    1.96 * 347.4 / sqrt(n) = 681 / sqrt(n) Elo. It ignores the opponents' own uncertainty and
    the extra comparisons of a bigger table, so it is a guide to when two bots are not yet
    distinguishable, not a confidence statement. None before the first match.
    """
    if games <= 0:
        return None
    return 1.959963984540054 * 400 / (math.log(10) * 0.5) / math.sqrt(games)
