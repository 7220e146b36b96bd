"""Elo for tables of any size: the textbook two-seat case, zero sum, draws and round order."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.ratings import (
    DEFAULT_K,
    DEFAULT_RATING,
    apply_deltas,
    elo_deltas,
    rate_match,
    rate_round,
    rate_sequence,
)

FAST = settings(max_examples=60, deadline=None)

ratings_ = st.floats(min_value=100, max_value=3000, allow_nan=False)
ks = st.floats(min_value=1, max_value=64, allow_nan=False)


@st.composite
def tables(
    draw: st.DrawFn, min_seats: int = 1, max_seats: int = 6
) -> tuple[list[float], list[int]]:
    seats = draw(st.integers(min_seats, max_seats))
    ratings = draw(st.lists(ratings_, min_size=seats, max_size=seats))
    ranks = draw(st.lists(st.integers(0, seats - 1), min_size=seats, max_size=seats))
    return ratings, ranks


def textbook(mine: float, theirs: float, score: float, k: float) -> float:
    return k * (score - 1 / (1 + 10 ** ((theirs - mine) / 400)))


@FAST
@given(ratings_, ratings_, st.sampled_from([(0, 1), (1, 0), (0, 0)]), ks)
def test_two_seats_follow_the_textbook_formula(
    a: float, b: float, ranks: tuple[int, int], k: float
) -> None:
    score = {(0, 1): 1.0, (1, 0): 0.0, (0, 0): 0.5}[ranks]
    da, db = elo_deltas([a, b], ranks, k)
    assert da == pytest.approx(textbook(a, b, score, k), abs=1e-9)
    assert db == pytest.approx(textbook(b, a, 1 - score, k), abs=1e-9)


def test_equal_ratings_win_moves_half_of_k() -> None:
    assert elo_deltas([DEFAULT_RATING, DEFAULT_RATING], [0, 1]) == (DEFAULT_K / 2, -DEFAULT_K / 2)


@FAST
@given(tables(), ks)
def test_every_table_is_zero_sum(table: tuple[list[float], list[int]], k: float) -> None:
    ratings, ranks = table
    assert abs(math.fsum(elo_deltas(ratings, ranks, k))) < 1e-9


@FAST
@given(tables(min_seats=2), ks)
def test_a_table_is_its_pairwise_games_scaled_by_one_over_seats_minus_one(
    table: tuple[list[float], list[int]], k: float
) -> None:
    ratings, ranks = table
    seats = len(ratings)
    deltas = elo_deltas(ratings, ranks, k)
    for i in range(seats):
        pairwise = sum(
            elo_deltas([ratings[i], ratings[j]], [ranks[i], ranks[j]], k)[0]
            for j in range(seats)
            if j != i
        )
        assert deltas[i] == pytest.approx(pairwise / (seats - 1), abs=1e-9)


@FAST
@given(st.lists(ratings_, min_size=2, max_size=6), ks)
def test_ties_are_draws(ratings: list[float], k: float) -> None:
    seats = len(ratings)
    deltas = elo_deltas(ratings, [0] * seats, k)
    for i in range(seats):
        draws = sum(textbook(ratings[i], ratings[j], 0.5, k) for j in range(seats) if j != i)
        assert deltas[i] == pytest.approx(draws / (seats - 1), abs=1e-9)
    # A draw between equals changes nothing, and a tie between equals is a draw.
    assert elo_deltas([1700.0, 1700.0, 1200.0], [0, 0, 2], k)[0] == pytest.approx(
        elo_deltas([1700.0, 1700.0, 1200.0], [0, 1, 2], k)[0] - k / 2 / 2
    )


def test_winner_gains_and_loser_loses_at_a_big_table() -> None:
    deltas = elo_deltas([1500.0] * 6, [0, 1, 2, 3, 4, 5])
    assert deltas[0] > 0 > deltas[-1]
    assert list(deltas) == sorted(deltas, reverse=True)
    # Winning a six-seat table between equals moves a rating as much as one two-seat win.
    assert deltas[0] == pytest.approx(DEFAULT_K / 2)


@st.composite
def rounds(draw: st.DrawFn) -> tuple[dict[int, float], list[list[tuple[int, int]]]]:
    bots = draw(st.lists(st.integers(0, 500), min_size=2, max_size=24, unique=True))
    ratings = {bot: draw(ratings_) for bot in bots if draw(st.booleans())}
    out: list[list[tuple[int, int]]] = []
    rest = list(bots)
    while len(rest) >= 2:
        seats = draw(st.integers(2, min(6, len(rest))))
        table, rest = rest[:seats], rest[seats:]
        out.append([(bot, draw(st.integers(0, seats - 1))) for bot in table])
    return ratings, out


@FAST
@given(rounds(), st.randoms(use_true_random=False))
def test_a_round_does_not_depend_on_the_order_tables_finish(
    round_: tuple[dict[int, float], list[list[tuple[int, int]]]], rnd: random.Random
) -> None:
    ratings, tables_ = round_
    shuffled = [list(t) for t in tables_]
    rnd.shuffle(shuffled)
    for table in shuffled:
        rnd.shuffle(table)
    deltas = rate_round(ratings, tables_)
    assert deltas == rate_round(ratings, shuffled)
    assert set(deltas) == {bot for table in tables_ for bot, _ in table}
    assert abs(math.fsum(deltas.values())) < 1e-9
    # Each table is rated from the ratings before the round, not from its neighbours' results.
    for table in tables_:
        assert {bot: deltas[bot] for bot, _ in table} == rate_match(ratings, table)


def test_unknown_bots_start_at_the_default_rating() -> None:
    table = [(1, 1), (2, 0), (3, 2)]
    known = {1: DEFAULT_RATING, 2: DEFAULT_RATING, 3: DEFAULT_RATING}
    assert rate_round({}, [table]) == rate_round(known, [table])
    assert apply_deltas({}, {7: 5.0}) == {7: DEFAULT_RATING + 5.0}


def test_ad_hoc_matches_are_rated_as_they_finish() -> None:
    first, second = [(1, 0), (2, 1)], [(1, 0), (3, 1)]
    after_first = apply_deltas({}, rate_match({}, first))
    expected = apply_deltas(after_first, rate_match(after_first, second))
    assert rate_sequence({}, [first, second]) == expected
    # Bot 1 is rated above 1500 for its second match, so it gains less than in its first.
    assert expected[1] - after_first[1] < after_first[1] - DEFAULT_RATING


def test_k_is_an_option() -> None:
    small = elo_deltas([1500.0, 1600.0, 1400.0], [2, 0, 1], k=16)
    big = elo_deltas([1500.0, 1600.0, 1400.0], [2, 0, 1], k=32)
    assert big == pytest.approx([2 * d for d in small])


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="ranks"):
        elo_deltas([1500.0, 1500.0], [0])
    with pytest.raises(ValueError, match="two tables"):
        rate_round({}, [[(1, 0), (2, 1)], [(1, 0), (3, 1)]])
    with pytest.raises(ValueError, match="two seats"):
        rate_match({}, [(1, 0), (1, 1)])
