"""The Hart scenario builder: exact positions, validated, that play on like any other."""

from __future__ import annotations

import pytest

from engines.hart.data import Good
from engines.hart.rules import HartRules
from engines.hart.scenario import ScenarioError, SeatSetup, scenario
from engines.hart.state import Bag
from engines.rng import HashRng

RULES = HartRules()


def test_a_built_position_waits_for_packing_and_plays_on() -> None:
    hand = {"statue": 2, "jug": 3}
    state = scenario(4, sheriff=2, round=2, turn=3, players={0: SeatSetup(money=12, hand=hand)})
    decision = RULES.decision(state)
    assert decision is not None and decision.label == "pack"
    assert decision.seats == {3, 0, 1}
    me = state.players[0]
    assert me.money == 12 and me.hand == Bag.of([Good.STATUE] * 2 + [Good.JUG] * 3)
    assert (state.round, state.turn, state.sheriff) == (1, 2, 2)
    assert state.total_cards() == Bag.full_deck()
    joint = {s: RULES.legal_actions(state, s).default() for s in decision.seats}
    after = RULES.apply(state, joint, HashRng(0, "x"))
    assert RULES.decision(after) is not None


def test_the_builder_refuses_impossible_positions() -> None:
    with pytest.raises(ScenarioError, match="at most 5 cards"):
        scenario(3, players={0: SeatSetup(hand={"jug": 6})})
    with pytest.raises(ScenarioError, match="no statue card is left"):
        scenario(3, players={0: SeatSetup(hand={"statue": 5}, kept={"statue": 9})})
    with pytest.raises(ScenarioError, match="unknown good"):
        scenario(3, players={0: SeatSetup(hand={"gold": 1})})
    with pytest.raises(ScenarioError, match="turn 7 is outside"):
        scenario(3, turn=7)


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 2, 9])
def test_any_seat_may_keep_every_card_the_other_seats_give_back(seats: int, seed: int) -> None:
    # Conservation is checked over the whole position: a seat earlier in seat order may hold
    # statues that a later seat gives up (the builder once filled the seats one by one).
    for keeper in range(seats):
        others = {seat: SeatSetup(hand={}) for seat in range(seats) if seat != keeper}
        players = {**others, keeper: SeatSetup(hand={"jug": 1}, kept={"statue": 13})}
        state = scenario(seats, seed=seed, sheriff=(keeper + 1) % seats, players=players)
        assert state.players[keeper].under == Bag.of([Good.STATUE] * 13)
        assert state.total_cards() == Bag.full_deck()


def test_a_position_asking_for_more_cards_than_the_game_has_still_fails() -> None:
    players = {0: SeatSetup(kept={"statue": 13}), 1: SeatSetup(kept={"statue": 1})}
    with pytest.raises(ScenarioError, match="no statue card is left"):
        scenario(4, seed=2, players=players)
