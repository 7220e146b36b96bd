"""Card data, sale caps and the end-of-game sale: worked examples 2-4 and edge cases 10, 11."""

from __future__ import annotations

import pytest

from engines.hart.data import CARDS, DECK_SIZE, GOODS, LEGAL_GOODS, SALE_CAPS, Good
from engines.hart.inspection import split_by_declaration
from engines.hart.scoring import double_sale
from engines.hart.state import Bag

J, M, S, C = Good.JUG, Good.MARACAS, Good.SOMBRERO, Good.CIGAR


def test_card_data_matches_the_rulebook() -> None:
    assert [(CARDS[g].count, CARDS[g].value, CARDS[g].penalty) for g in GOODS] == [
        (39, 2, 1),
        (30, 3, 2),
        (23, 4, 3),
        (18, 7, 5),
        (16, 9, 6),
        (13, 12, 8),
    ]
    assert DECK_SIZE == 139
    assert Bag.full_deck().value() == 686
    assert LEGAL_GOODS == (J, M, S)
    assert [g.value for g in GOODS] == ["jug", "maracas", "sombrero", "cigar", "tequila", "statue"]


def test_sale_caps_table() -> None:
    assert SALE_CAPS[6] == (12, 10, 8, 6, 5, 4)
    assert SALE_CAPS[5] == (10, 8, 6, 5, 4, 3)
    assert SALE_CAPS[4] == (8, 6, 5, 4, 3, 2)
    assert SALE_CAPS[3] == (6, 5, 4, 3, 2, 2)


def test_worked_example_2_everyone_sells_under_the_cap() -> None:  # edge case 11
    assert double_sale([3, 2, 1, 0], cap=8, value=2) == (12, 8, 4, 0)


def test_worked_example_3_the_biggest_holder_fills_the_cap() -> None:  # edge case 10
    assert double_sale([6, 4, 2, 2, 0, 0], cap=5, value=9) == (90, 0, 0, 0, 0, 0)


def test_worked_example_4_ties_split_and_the_rest_is_lost() -> None:  # edge case 10
    income = double_sale([2, 1, 1, 1], cap=4, value=7)
    assert income == (28, 9, 9, 9)
    assert 4 * 14 - sum(income) == 1


def test_tie_at_the_top_shares_the_whole_cap() -> None:  # H14
    assert double_sale([3, 3, 0], cap=5, value=12) == (60, 60, 0)
    assert double_sale([3, 3, 1], cap=6, value=2) == (12, 12, 0)


def test_exactly_at_the_cap_everyone_sells() -> None:
    assert double_sale([2, 2, 1], cap=5, value=4) == (16, 16, 8)


def test_second_group_gets_the_remainder() -> None:
    # cap 6: A sells 4, then B and C (2 each) share the last 2 cards
    assert double_sale([4, 2, 2], cap=6, value=3) == (24, 6, 6)


def test_split_by_declaration() -> None:
    bag = Bag.of([S, C, C])
    assert split_by_declaration(bag, 3, S) == (Bag.of([S]), Bag.of([C, C]))
    assert split_by_declaration(Bag.of([J] * 4), 3, J) == (Bag.of([J] * 3), Bag.of([J]))
    assert split_by_declaration(Bag.of([J, J]), 3, J) == (Bag.of([J, J]), Bag())


def test_bag_arithmetic_and_wire_names() -> None:
    bag = Bag.of([C, J, M, J])
    assert len(bag) == 4 and bag.names() == ["jug", "jug", "maracas", "cigar"]
    assert bag - Bag.of([J]) == Bag.of([J, M, C])
    assert bag.value() == 2 + 2 + 3 + 7 and bag.penalty() == 1 + 1 + 2 + 5
    with pytest.raises(ValueError):
        bag - Bag.of([S])


def test_sub_bags_are_distinct_and_complete() -> None:
    hand = Bag.of([J, J, M, C, C])
    subs = hand.sub_bags(1, 5)
    assert len(subs) == len(set(subs)) == 3 * 2 * 3 - 1
    assert all(1 <= len(b) <= 5 and b <= hand for b in subs)
    assert subs[0] == Bag.of([J])
    assert len(Bag.of([J] * 10 + [M] * 10).sub_bags(0, 3)) == 10
