"""Turn order, extra turns, crew cards bought or played, Villains, and the turn cap."""

from __future__ import annotations

from dataclasses import replace

from engines.api import Termination
from engines.crossing.actions import Buy, BuyCar, BuyCards, Pass, PickCar
from engines.crossing.data import Car
from engines.crossing.state import Label
from tests.crossing.build import (
    RULES,
    act,
    begin,
    cars,
    edit,
    events,
    hand,
    label,
    roll,
    setup_events,
    space,
    turn_of,
)
from tests.crossing.test_edge_cases import PARKING, neutral


def active(state: object) -> int:
    return state.turn.active  # type: ignore[attr-defined,no-any-return]


def test_the_highest_roll_starts_and_play_goes_clockwise() -> None:
    state = begin(3, seed=5)
    rolls = [
        e.to_json()["totals"] for e in setup_events(3, seed=5) if e.kind == "first_player_roll"
    ]
    best = max(rolls[-1], key=lambda r: r["total"])
    assert active(state) == best["seat"]
    assert sum(1 for r in rolls[-1] if r["total"] == best["total"]) == 1
    first = active(state)
    for seat in range(3):
        state = edit(state, seat, position=("O19", "O24", "O31")[seat], hand={})
    state = act(turn_of(state, first), roll(), dice=(1, 2))
    assert active(state) == (first + 1) % 3


def test_stopping_where_another_locomotive_stands_gives_another_turn() -> None:
    state = turn_of(edit(neutral(), 0, position="O26"), 0)  # seat 1 waits on O29
    state = act(state, roll(), dice=(1, 2))
    assert active(state) == 0 and state.turn.chain == 1 and events(state, "extra_turn")


def test_roll_again_gives_another_turn() -> None:
    state = edit(neutral(), 0, position="O8")
    state = act(state, roll(), dice=(1, 2))
    assert state.players[0].position == space("O11") and active(state) == 0


def test_chained_extra_turns_stop_at_the_cap() -> None:
    state = neutral(extra_turn_cap=1)
    state = edit(state, 1, position="O14")
    state = turn_of(edit(state, 0, position="O8"), 0)
    state = act(state, roll(), dice=(1, 2))  # O11 roll again: extra turn 1
    assert active(state) == 0 and state.turn.chain == 1
    state = act(state, roll(), dice=(1, 2))  # O14, occupied: the cap says no more
    assert state.players[0].position == space("O14") and active(state) == 1


def test_buying_crew_cards_instead_of_rolling() -> None:
    state = edit(neutral(), 0, position="O10", money=25)
    assert BuyCards(None) in RULES.legal_actions(state, 0)
    state = act(state, BuyCards(None), dice=(5,))
    assert label(state) is Label.BUY_CREW and state.prompt.value == 2  # type: ignore[union-attr]
    state = act(state, Buy(2))
    assert state.players[0].money == 5 and sum(state.players[0].hand) == 2
    assert state.players[0].position == space("O10") and active(state) == 1


def test_buying_crew_cards_needs_the_price_of_one() -> None:
    state = edit(neutral(), 0, position="O10", money=9)
    assert all(not isinstance(a, BuyCards) for a in RULES.legal_actions(state, 0).listing() or [])


def test_govt_contract_offers_crew_cards_up_to_the_die() -> None:
    state = act(edit(neutral(), 0, position="O2"), roll("none"), dice=(1, 2, 3))
    assert label(state) is Label.BUY_CREW and state.prompt.value == 3  # type: ignore[union-attr]
    assert Buy(0) == RULES.legal_actions(state, 0).default()
    state = act(state, Buy(0))
    assert state.players[0].money == 100 and active(state) == 1


def test_villain_victim_drops_a_car_of_its_choice_on_its_own_space() -> None:
    state = edit(neutral(), 2, cars={"box": 1, "tank": 1})
    state = edit(state, 0, position="O10", hand={"villain": 1})
    legal = RULES.legal_actions(state, 0)
    assert roll(villain=2) in legal and roll(villain=1) not in legal  # seat 1 has no car
    state = act(state, roll(villain=2))
    assert label(state) is Label.VILLAIN_CAR and state.prompt.seats == (2,)  # type: ignore[union-attr]
    state = act(state, PickCar(Car.TANK), dice=(1, 3))
    assert cars(state, 2) == {"box": 1} and state.loose[space(PARKING[2])] == (Car.TANK,)
    assert hand(state, 0) == {} and state.players[0].position == space("O14")


def test_villain_player_chooses_the_car_by_option() -> None:
    state = edit(neutral(villain_choice="villain"), 2, cars={"box": 1, "tank": 1})
    state = act(edit(state, 0, position="O10", hand={"villain": 1}), roll(villain=2))
    assert state.prompt is not None and state.prompt.seats == (0,) and state.prompt.seat == 2


def test_a_yard_sells_its_car_at_the_printed_price() -> None:
    state = act(edit(neutral(), 0, position="I2", hand={"railroad_crew": 1}), roll("slow"), (2,))
    assert label(state) is Label.YARD
    state = act(state, BuyCar())
    assert cars(state, 0) == {"hopper": 1} and state.players[0].money == 85


def test_a_yard_can_be_declined() -> None:
    state = act(edit(neutral(), 0, position="I2", hand={"railroad_crew": 1}), roll("slow"), (2,))
    state = act(state, Pass())
    assert cars(state, 0) == {} and state.players[0].money == 100


def test_crew_piles_are_refilled_from_the_discards() -> None:
    state = edit(neutral(), 0, position="O1")
    state = replace(state, piles=((), ()), discard=(3, 0, 0, 0))
    state = act(state, roll(), dice=(1, 1, 1, 1))  # O3: draw; two more values shuffle 3 cards
    assert events(state, "reshuffled") and hand(state, 0) == {"railroad_crew": 1}
    assert sum(len(p) for p in state.piles) == 2 and state.discard == (0, 0, 0, 0)


def test_the_round_cap_ends_the_game_on_contracts_then_money() -> None:
    state = replace(neutral(3, round_cap=1), turns=0, regular_turns=0)
    state = edit(state, 0, position="O19", money=50, contracts=["A1"])
    state = edit(state, 1, position="O24", money=80, contracts=["B1"])
    state = edit(state, 2, position="O31", money=500)
    state = turn_of(state, 0)
    for seat in range(3):
        assert active(state) == seat
        state = act(state, roll(), dice=(1, 2))
    assert state.termination is Termination.TURN_LIMIT and RULES.decision(state) is None
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.ranks == (2, 1, 3)
    assert outcome.termination is Termination.TURN_LIMIT and outcome.scores == (1.0, 1.0, 0.0)
