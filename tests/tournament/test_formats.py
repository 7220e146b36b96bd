"""Round-robin pairing, default rounds, the provisional K schedule and OpenSkill ratings."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest

from arena.tournament import skill
from arena.tournament.formats import (
    Format,
    default_rounds,
    pair_round_robin,
    parse_format,
    parse_rating_system,
    round_robin_rounds,
)
from arena.tournament.pairing import Entrant, History
from arena.tournament.ratings import (
    DEFAULT_K,
    DEFAULT_RATING,
    PROVISIONAL_SCHEDULE,
    elo_deltas,
    provisional_k,
    rate_match,
)


@pytest.mark.parametrize(("entrants", "table_size"), [(6, 2), (8, 2), (7, 3), (9, 3), (5, 2)])
def test_a_round_robin_meets_every_pair_as_evenly_as_the_rounds_allow(
    entrants: int, table_size: int
) -> None:
    rnd = random.Random(entrants)
    # Scores are uneven on purpose: a round-robin ignores them.
    field = [Entrant(b, Fraction(rnd.randrange(9)), Fraction(0), 1500.0) for b in range(entrants)]
    history = History()
    for round_no in range(1, round_robin_rounds(entrants, table_size) + 1):
        pairing = pair_round_robin(field, history, table_size, range(2, 7), 1, round_no)
        history = history.after(pairing.tables)
    met = Counter({pair: history.times_met(*pair) for pair in combinations(range(entrants), 2)})
    assert max(met.values()) - min(met.values()) <= 1
    if table_size == 2 and entrants % 2 == 0:
        assert set(met.values()) == {1}  # a perfect round-robin: everyone met everyone once


def test_default_rounds_follow_the_field_size() -> None:
    assert default_rounds(16, 4, Format.SWISS) == 4  # log4(16) + 2
    assert default_rounds(1000, 4, Format.SWISS) == 7
    assert default_rounds(8, 2, Format.SWISS) == 5
    assert default_rounds(5, 4, Format.SWISS) == 2  # no more than a round-robin needs
    assert default_rounds(3, 6, Format.SWISS) == 1
    assert default_rounds(8, 2, Format.ROUND_ROBIN) == 7
    assert default_rounds(9, 3, Format.ROUND_ROBIN) == 4


def test_unknown_formats_and_systems_are_named() -> None:
    with pytest.raises(ValueError, match=r"unknown format 'knockout'.*swiss"):
        parse_format("knockout")
    with pytest.raises(ValueError, match=r"unknown rating system 'glicko'.*openskill"):
        parse_rating_system("glicko")


def test_provisional_k_follows_the_schedule_then_settles() -> None:
    assert [provisional_k(g) for g in (0, 9, 10, 19, 20, 500)] == [64, 64, 48, 48, 32, 32]
    assert PROVISIONAL_SCHEDULE[0] == (10, 64.0)
    # A newcomer's win moves it twice as far as its established opponent loses.
    deltas = rate_match({1: 1500.0, 2: 1500.0}, [(1, 0), (2, 1)], games={1: 0, 2: 50})
    assert deltas[1] == pytest.approx(32.0) and deltas[2] == pytest.approx(-16.0)
    assert sum(elo_deltas([1500.0, 1600.0, 1400.0], [0, 1, 2], [32.0] * 3)) == pytest.approx(0)


def test_a_strong_newcomer_reaches_its_level_sooner_with_provisional_k() -> None:
    def tables_to_reach(provisional: bool) -> int:
        rnd = random.Random(9)
        rating = DEFAULT_RATING
        for games in range(500):
            field = [rnd.gauss(1700, 100) for _ in range(3)]
            strengths = [2000.0, *field]
            noisy = [s + rnd.gauss(0, 200) for s in strengths]
            ranks = [sorted(noisy, reverse=True).index(x) for x in noisy]
            k = provisional_k(games) if provisional else DEFAULT_K
            rating += elo_deltas([rating, *field], ranks, [k, DEFAULT_K, DEFAULT_K, DEFAULT_K])[0]
            if rating >= 1950:
                return games + 1
        return 500

    assert tables_to_reach(True) < tables_to_reach(False)


def test_openskill_rewards_the_winner_and_rates_a_round_from_before_it() -> None:
    table = [(1, 0), (2, 1), (3, 2), (4, 2)]
    new = skill.rate_table({}, table)
    assert new[1].mu > new[2].mu > new[3].mu == new[4].mu
    assert new[1].mu > skill.Skill().mu > new[3].mu
    assert all(s.games == 1 and s.sigma < skill.Skill().sigma for s in new.values())
    before = {1: skill.Skill(30.0, 5.0, 4)}
    both = skill.rate_round(before, [[(1, 1), (2, 0)], [(3, 0), (4, 1)]])
    alone = skill.rate_table(before, [(1, 1), (2, 0)])
    assert both[1] == alone[1] and both[1].games == 5
    with pytest.raises(ValueError, match="two tables"):
        skill.rate_round({}, [[(1, 0), (2, 1)], [(1, 0), (3, 1)]])
    with pytest.raises(ValueError, match="two seats"):
        skill.rate_table({}, [(1, 0), (1, 1)])
