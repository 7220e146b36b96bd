"""Every edge case of research-notes section 2.3, played with exact (scripted) dice."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from engines.api import Termination
from engines.crossing.actions import (
    Accept,
    Buy,
    Discard,
    Pass,
    PickCar,
    PickContract,
    PickSeat,
    PickSpace,
    PlayStop,
)
from engines.crossing.data import BOARDS, CARS, Car, Crew
from engines.crossing.scenario import SeatSetup, scenario
from engines.crossing.state import CrossingState, Label
from engines.rng import ScriptedRng
from tests.crossing.build import (
    BOARD,
    RULES,
    act,
    board_variant,
    cars,
    contract_ids,
    edit,
    events,
    hand,
    label,
    on_board,
    roll,
    space,
    turn_of,
)

PARKING = ("O27", "O29", "O34", "O38", "O39", "O22")
"""Plain spaces far apart, where idle locomotives wait."""


def neutral(seats: int = 4, active: int = 0, **options: object) -> CrossingState:
    """Everyone parked on plain spaces with 100, no cars, cards or contracts; `active` to play."""
    empty = {"money": 100, "cars": {}, "hand": {}, "contracts": ()}
    players = {s: SeatSetup(position=PARKING[s], **empty) for s in range(seats)}  # type: ignore[arg-type]
    return scenario(seats, active=active, players=players, options=options)


def active(state: CrossingState) -> int:
    return state.turn.active


# 1 -------------------------------------------------------------------------------------------
def test_setup_rerolls_only_the_die_whose_yard_is_empty() -> None:
    deck = [0] * (sum(BOARD.crew_count) - 1)  # a shuffle that leaves the deck in order
    cars_dice = [1, 1, 1, 1, 1, 1, 1, 2, 3, 3, 4, 6, 6]  # seat 3's first die names passengers
    first = [6, 6] + [1, 2] * 5
    rng = ScriptedRng(deck + [d - 1 for d in cars_dice + first])
    start = RULES.start(6, RULES.resolve_options({}), rng)
    state = start.state
    assert rng.used == len(deck) + len(cars_dice) + len(first)
    assert cars(state, 0) == cars(state, 1) == cars(state, 2) == {"passenger": 2}
    assert cars(state, 3) == {"box": 2}  # die 1 re-rolled to 2; its other die (3) was kept
    seat3 = [e for e in start.events if e.kind == "setup_roll" and dict(e.data)["seat"] == 3]
    assert [dict(e.data)["die"] for e in seat3] == [1, 2, 3]
    assert cars(state, 4) == {"box": 1, "hopper": 1} and cars(state, 5) == {"tank": 2}
    assert state.yards[CARS.index(Car.PASSENGER)] == 0
    assert active(state) == 0 and state.turns == 1


# 2 -------------------------------------------------------------------------------------------
def test_a_double_costs_one_crew_card_then_moves() -> None:
    state = edit(neutral(), 0, position="O10", hand={"stop": 1, "villain": 1})
    state = act(state, roll(), dice=(2, 2))
    assert label(state) is Label.DISCARD and state.players[0].position == space("O10")
    state = act(state, Discard(Crew.VILLAIN))
    assert hand(state, 0) == {"stop": 1} and state.discard[1] == 1
    assert state.players[0].position == space("O14")


def test_a_double_with_no_card_in_hand_just_moves() -> None:
    state = act(edit(neutral(), 0, position="O10"), roll(), dice=(2, 2))
    assert state.players[0].position == space("O14") and active(state) == 1


def test_double_six_takes_a_boxcar_instead_of_a_discard() -> None:
    state = edit(neutral(), 0, position="O1", hand={"stop": 1})
    state = act(state, roll(), dice=(6, 6))
    assert cars(state, 0) == {"box": 1} and hand(state, 0) == {"stop": 1}
    assert state.players[0].position == space("O13")


def test_double_six_with_no_boxcar_left_still_moves() -> None:
    state = neutral()
    yards = list(state.yards)
    yards[CARS.index(Car.BOX)] = 0
    state = edit(replace(state, yards=tuple(yards)), 0, position="O1", hand={"stop": 1})
    state = act(state, roll(), dice=(6, 6))
    assert cars(state, 0) == {} and hand(state, 0) == {"stop": 1}
    assert events(state, "yard_empty") and state.players[0].position == space("O13")


# 3 -------------------------------------------------------------------------------------------
SIX = {"box": 2, "hopper": 2, "passenger": 2}


def _sell_seventh(state: CrossingState, seat: int = 0) -> CrossingState:
    assert label(state) is Label.RACK_LIMIT and sum(state.players[seat].rack) == 7
    money = state.players[seat].money
    state = act(state, PickCar(Car.PASSENGER))
    assert sum(state.players[seat].rack) == 6
    assert state.players[seat].money == money + BOARD.car_sale_price(Car.PASSENGER) == money + 10
    return state


def test_seventh_car_from_the_train_shop_is_sold_at_half_price() -> None:
    state = edit(neutral(), 0, position="CENTRAL", cars=SIX)
    state = act(state, roll(), dice=(1, 3))  # CENTRAL -> O0 -> (O1 | I1) -> ... 4 steps
    assert label(state) is Label.ROUTE and set(state.prompt.spaces) == {space("O3"), space("I3")}  # type: ignore[union-attr]
    state = act(state, PickSpace(space("I3")))
    assert label(state) is Label.TRAIN_SHOP
    state = act(state, Accept(), dice=(6,))  # the train shop's die: a tank car
    state = _sell_seventh(state)
    assert cars(state, 0) == {"box": 2, "hopper": 2, "passenger": 1, "tank": 1}


def test_seventh_car_taken_at_derail_is_sold_at_half_price() -> None:
    state = edit(neutral(), 0, position="O9", cars=SIX)
    loose = list(state.loose)
    loose[space("O12")] = (Car.TANK,)
    state = act(replace(state, loose=tuple(loose)), roll(), dice=(1, 2))
    state = _sell_seventh(state)
    assert state.loose[space("O12")] == () and active(state) == 1  # took it, dropped nothing


def test_seventh_car_dropped_by_a_villain_is_sold_at_half_price() -> None:
    state = edit(neutral(), 0, position="O10", cars=SIX)
    loose = list(state.loose)
    loose[space("O14")] = (Car.TANK, Car.BOX)
    state = act(replace(state, loose=tuple(loose)), roll(), dice=(1, 3))
    state = _sell_seventh(state)
    assert state.loose[space("O14")] == (Car.BOX,)  # one car per visit, the oldest first


def test_seventh_car_from_double_six_is_sold_before_moving() -> None:
    state = edit(neutral(), 0, position="O1", cars=SIX)
    state = act(state, roll(), dice=(6, 6))
    assert state.players[0].position == space("O1")
    state = _sell_seventh(state)
    assert state.players[0].position == space("O13")


# 4 -------------------------------------------------------------------------------------------
def test_one_railroad_crew_slows_to_one_die() -> None:
    state = edit(neutral(), 0, position="O20", hand={"railroad_crew": 2})
    state = act(state, roll("slow"), dice=(2,))
    assert state.players[0].position == space("O22") and hand(state, 0) == {"railroad_crew": 1}


def test_one_railroad_crew_reverses_and_the_next_turn_goes_clockwise_again() -> None:
    state = edit(neutral(2), 0, position="O20", hand={"railroad_crew": 1})
    state = act(state, roll("reverse"), dice=(2, 4))
    assert state.players[0].position == space("O14") and hand(state, 0) == {}
    state = act(state, roll(), dice=(1, 2))  # seat 1's turn
    assert active(state) == 0 and state.turn.crew.value == "none"
    state = act(state, roll(), dice=(2, 3))
    assert state.players[0].position == space("O19")


def test_two_railroad_crews_slow_and_reverse_together() -> None:
    state = edit(neutral(), 0, position="O20", hand={"railroad_crew": 2})
    legal = RULES.legal_actions(state, 0)
    assert roll("slow_reverse") in legal
    state = act(state, roll("slow_reverse"), dice=(1,))
    assert state.players[0].position == space("O19") and hand(state, 0) == {}


def test_railroad_crew_modes_need_the_cards() -> None:
    state = edit(neutral(), 0, position="O20", hand={"railroad_crew": 1})
    legal = RULES.legal_actions(state, 0)
    assert roll("slow") in legal and roll("reverse") in legal
    assert roll("slow_reverse") not in legal


# 5 -------------------------------------------------------------------------------------------
def _engineer_refused(state: CrossingState) -> None:
    assert active(state) == 1, "the Engineer gave no extra turn"
    assert hand(state, 0) == {"engineer": 1}, "a refused Engineer goes back to the hand"
    assert [e["used"] for e in events(state, "engineer")] == [False]


def test_engineer_gives_another_turn_on_an_ordinary_space() -> None:
    state = edit(neutral(), 0, position="O10", hand={"engineer": 1})
    state = act(state, roll(engineer=True), dice=(1, 3))
    assert active(state) == 0 and state.turn.chain == 1 and hand(state, 0) == {}
    assert state.discard[2] == 1


def test_engineer_refused_on_stop() -> None:
    state = edit(neutral(), 0, position="O5", hand={"engineer": 1})
    _engineer_refused(act(state, roll(engineer=True), dice=(1, 2)))


def test_engineer_refused_on_derail() -> None:
    state = edit(neutral(), 0, position="O9", hand={"engineer": 1}, cars={"box": 1})
    state = act(state, roll(engineer=True), dice=(1, 2))
    assert state.loose[space("O12")] == (Car.BOX,)
    _engineer_refused(state)


def test_engineer_refused_after_a_failed_roundhouse() -> None:
    state = edit(neutral(), 0, position="O10", hand={"engineer": 1})
    state = act(state, roll(engineer=True), dice=(2, 3, 1, 2, 3, 4, 5, 6))
    assert len(events(state, "special_roll")) == 3
    assert state.players[0].position == space("O15")
    _engineer_refused(state)


def test_engineer_refused_after_dissatisfied_customer() -> None:
    state = edit(neutral(), 0, position="O20", hand={"engineer": 1}, contracts=["A1", "B1"])
    state = act(state, roll(engineer=True), dice=(1, 2, 1, 2, 3, 4, 5, 6))
    assert label(state) is Label.DISSATISFIED
    state = act(state, PickContract("B1"))
    assert contract_ids(state, 0) == ["A1"] and "B1" in [
        BOARD.contract_ids[i] for i in state.stacks[1]
    ]
    _engineer_refused(state)


def test_roundhouse_double_moves_anywhere_but_another_roundhouse() -> None:
    state = edit(neutral(), 0, position="O10")
    state = act(state, roll(), dice=(2, 3, 1, 2, 4, 4))
    assert label(state) is Label.ROUNDHOUSE and state.prompt is not None
    assert space("O15") not in state.prompt.spaces and space("START") not in state.prompt.spaces
    state = act(state, PickSpace(space("I7")))
    assert state.players[0].position == space("I7") and state.players[0].money == 110


# 6 -------------------------------------------------------------------------------------------
def _stop_table() -> CrossingState:
    state = neutral()
    for seat in (1, 2):
        state = edit(state, seat, hand={"stop": 1})
    state = edit(state, 0, position="O10", hand={"railroad_crew": 1})
    return turn_of(state, 0)


def test_stop_duel_won_takes_the_turn_away_and_spends_nothing_else() -> None:
    state = _stop_table()
    assert set(state.prompt.seats) == {0, 1, 2}  # type: ignore[union-attr]
    state = act(state, {0: roll("slow"), 1: PlayStop()}, dice=(5, 3))
    assert events(state, "turn_lost") and active(state) == 1
    assert state.players[0].position == space("O10") and hand(state, 0) == {"railroad_crew": 1}
    assert hand(state, 1) == {} and hand(state, 2) == {"stop": 1}


def test_stop_duel_lost_lets_the_turn_go_on() -> None:
    state = act(_stop_table(), {0: roll(), 1: PlayStop()}, dice=(2, 6, 1, 3))
    assert not events(state, "turn_lost") and state.players[0].position == space("O14")
    assert hand(state, 1) == {}


def test_stop_duel_ties_are_rerolled() -> None:
    state = act(_stop_table(), {0: roll(), 1: PlayStop()}, dice=(4, 4, 6, 1))
    assert [e["rolls"] for e in events(state, "duel")] == [[4, 4], [6, 1]]
    assert events(state, "turn_lost")


def test_stop_duel_tie_goes_to_the_defender_by_option() -> None:
    state = neutral(duel_tie="defender")
    state = turn_of(edit(edit(state, 1, hand={"stop": 1}), 0, position="O10"), 0)
    state = act(state, {0: roll(), 1: PlayStop()}, dice=(4, 4, 1, 3))
    assert not events(state, "turn_lost") and state.players[0].position == space("O14")


def test_only_the_first_stop_clockwise_is_played() -> None:
    state = act(_stop_table(), {0: roll(), 1: PlayStop(), 2: PlayStop()}, dice=(1, 6, 1, 3))
    assert hand(state, 1) == {} and hand(state, 2) == {"stop": 1}
    assert len(events(state, "duel")) == 1


# 7 -------------------------------------------------------------------------------------------
def _move_one(state: CrossingState) -> CrossingState:
    """From O1 with slow crew, one die of 1: land on O2 (TRADE A/B)."""
    state = edit(state, 0, hand={"railroad_crew": 1})
    return act(state, roll("slow"), dice=(1,))


def test_trade_with_nothing_eligible_offers_nothing() -> None:
    state = _move_one(edit(neutral(), 0, position="O1"))
    assert state.players[0].position == space("O2") and active(state) == 1


def test_trade_with_one_eligible_contract() -> None:
    state = _move_one(edit(neutral(), 0, position="O1", cars={"box": 2}))
    assert label(state) is Label.TRADE
    assert list(RULES.legal_actions(state, 0).listing() or []) == [Pass(), PickContract("A1")]
    boxes = state.yards[CARS.index(Car.BOX)]
    state = act(state, PickContract("A1"))
    assert contract_ids(state, 0) == ["A1"] and cars(state, 0) == {}
    assert state.players[0].money == 90 and state.yards[CARS.index(Car.BOX)] == boxes + 2
    assert active(state) == 1


def test_trade_offers_every_eligible_contract_and_asks_again() -> None:
    rack = {"box": 2, "hopper": 2, "tank": 1}
    state = _move_one(edit(neutral(), 0, position="O1", cars=rack, money=200))
    offered = {a.contract for a in _contracts_offered(state)}
    assert offered == {"A1", "A2", "A3", "B1", "B2", "B3"}
    state = act(state, PickContract("A1"))  # leaves 2 hoppers and a tank: B1 or B3
    assert {a.contract for a in _contracts_offered(state)} == {"B1", "B3"}
    state = act(state, PickContract("B1"))
    assert contract_ids(state, 0) == ["A1", "B1"] and active(state) == 1


def _contracts_offered(state: CrossingState) -> list[PickContract]:
    listing = RULES.legal_actions(state, 0).listing() or []
    return [a for a in listing if isinstance(a, PickContract)]


@pytest.mark.parametrize(("boxcars", "left"), [(3, 0), (4, 1)])
def test_trade_takes_at_most_three_contracts_per_visit(
    monkeypatch: pytest.MonkeyPatch, boxcars: int, left: int
) -> None:
    def one_car_contracts(raw: dict[str, Any]) -> None:
        for contract in raw["contracts"]:
            contract["cars"] = {"box": 1}

    board = board_variant("one-car.json", one_car_contracts)
    monkeypatch.setitem(BOARDS, board.name, board)
    state = on_board(neutral(), board)
    state = _move_one(edit(state, 0, position="O1", cars={"box": boxcars}, money=200))
    assert len(_contracts_offered(state)) == 6
    for cid in ("A1", "A2", "B1"):
        assert label(state) is Label.TRADE
        state = act(state, PickContract(cid))
    assert label(state) is not Label.TRADE and active(state) == 1
    assert len(contract_ids(state, 0)) == 3 and cars(state, 0) == ({"box": left} if left else {})


def test_trade_needs_the_cars_and_the_cash() -> None:
    missing = _move_one(edit(neutral(), 0, position="O1", cars={"box": 1, "hopper": 1}))
    assert active(missing) == 1, "one boxcar opens no contract here"
    poor = _move_one(edit(neutral(), 0, position="O1", cars={"box": 2}, money=5))
    assert active(poor) == 1 and contract_ids(poor, 0) == []


# 8 -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("contract", "money", "offered", "paid"),
    [("C1", 10, True, 10), ("C1", 9, False, 0), ("B1", 5, True, 5), ("A1", 5, True, 5)],
)
def test_connections_halves_the_price_rounding_down_to_a_banknote(
    contract: str, money: int, offered: bool, paid: int
) -> None:
    # C1 costs 25 -> 12.5 -> 10; B1 costs 15 -> 7.5 -> 5; A1 costs 10 -> 5.
    rack = {"tank": 2, "hopper": 2, "box": 2}
    state = edit(neutral(), 0, position="O34", cars=rack, money=money)
    state = act(state, roll(), dice=(1, 1))  # a double: no card to discard
    assert state.players[0].position == space("O36")
    legal = RULES.legal_actions(state, 0) if label(state) is Label.CONNECTIONS else None
    assert (legal is not None and PickContract(contract) in legal) is offered
    if offered:
        state = act(state, PickContract(contract))
        assert state.players[0].money == money - paid and contract_ids(state, 0) == [contract]


def test_connections_without_cars_by_option() -> None:
    state = edit(neutral(connections_cars=False), 0, position="O34", money=10)
    state = act(state, roll(), dice=(1, 1))
    assert PickContract("C1") in RULES.legal_actions(state, 0)
    state = act(state, PickContract("C1"))
    assert cars(state, 0) == {} and contract_ids(state, 0) == ["C1"]


# 9 -------------------------------------------------------------------------------------------
def test_double_cross_with_nobody_holding_a_contract_does_nothing() -> None:
    state = act(edit(neutral(), 0, position="O3"), roll(), dice=(1, 2))
    assert events(state, "no_effect") and active(state) == 1


@pytest.mark.parametrize(
    ("dice", "keeps"), [((5, 2), True), ((2, 5), False), ((3, 3, 1, 6), False)]
)
def test_double_cross_duel(dice: tuple[int, ...], keeps: bool) -> None:
    state = edit(neutral(), 2, contracts=["A1", "B1"])
    state = act(edit(state, 0, position="O3"), roll(), dice=(1, 2))
    assert label(state) is Label.DOUBLE_CROSS
    state = act(state, PickContract("B1"), dice=dice)
    assert ("B1" in contract_ids(state, 0)) is keeps
    assert ("B1" in contract_ids(state, 2)) is not keeps


# 10 ------------------------------------------------------------------------------------------
def test_dissatisfied_customer_with_no_contract_ends_the_turn() -> None:
    state = edit(neutral(), 1, position="O23")  # occupied: would give an extra turn
    state = turn_of(edit(state, 0, position="O20"), 0)
    state = act(state, roll(), dice=(1, 2))
    assert events(state, "no_effect") and not events(state, "special_roll")
    assert active(state) == 1


def test_dissatisfied_customer_double_keeps_the_contract() -> None:
    state = edit(neutral(), 0, position="O20", contracts=["A1"])
    state = act(state, roll(), dice=(1, 2, 1, 2, 3, 3))
    assert events(state, "customer_satisfied") and contract_ids(state, 0) == ["A1"]


# 11 ------------------------------------------------------------------------------------------
def _tower(state: CrossingState, target: int, to: str, dice: tuple[int, ...] = ()) -> CrossingState:
    state = act(edit(state, 0, position="O20"), roll(), dice=(2, 4))
    assert label(state) is Label.TOWER_TARGET
    state = act(state, PickSeat(target))
    assert label(state) is Label.TOWER_SPACE and space("O26") not in state.prompt.spaces  # type: ignore[union-attr]
    return act(state, PickSpace(space(to)), dice=dice)


def test_control_tower_onto_depot() -> None:
    state = _tower(neutral(3), 2, "I7")
    assert state.players[2].money == 110 and state.depot == BOARD.depot_refill
    assert active(state) == 1, "the moved seat gets no turn out of it"


def test_control_tower_onto_roundhouse_then_anywhere() -> None:
    state = _tower(neutral(3), 2, "O15", dice=(1, 1))
    assert label(state) is Label.ROUNDHOUSE and state.prompt is not None
    assert state.prompt.seats == (2,) and space("O26") not in state.prompt.spaces
    state = act(state, PickSpace(space("O33")))
    assert state.players[2].money == 80 and active(state) == 1


def test_control_tower_onto_derail() -> None:
    state = edit(neutral(3), 2, cars={"box": 1, "tank": 1})
    state = _tower(state, 2, "O12")
    assert label(state) is Label.DERAIL_CAR and state.prompt.seats == (2,)  # type: ignore[union-attr]
    state = act(state, PickCar(Car.BOX))
    assert cars(state, 2) == {"tank": 1} and state.loose[space("O12")] == (Car.BOX,)
    assert active(state) == 1


def test_control_tower_onto_an_occupied_space_gives_no_extra_turn() -> None:
    state = _tower(neutral(3), 2, PARKING[1])
    assert state.players[2].position == state.players[1].position and active(state) == 1


def test_control_tower_may_be_declined() -> None:
    state = act(edit(neutral(3), 0, position="O20"), roll(), dice=(2, 4))
    state = act(state, Pass())
    assert active(state) == 1 and state.players[1].position == space(PARKING[1])


# 12 ------------------------------------------------------------------------------------------
def test_depot_pays_out_and_is_refilled() -> None:
    state = replace(neutral(), depot=35)
    state = act(edit(state, 0, position="I5"), roll(), dice=(1, 1))
    assert state.players[0].money == 135 and state.depot == 10
    assert events(state, "depot") == [
        {"number": state.number - 1, "kind": "depot", "seat": 0, "amount": 35, "refill": 10}
    ]


# 13 ------------------------------------------------------------------------------------------
def test_insolvency_sells_a_car_then_a_contract_then_forgives_the_rest() -> None:
    state = edit(neutral(), 0, position="O30", money=0, cars={"box": 1}, contracts=["A1"])
    state = act(state, roll(), dice=(1, 2))  # O33: tax 20
    assert label(state) is Label.RAISE_CASH
    assert list(RULES.legal_actions(state, 0).listing() or []) == [
        PickCar(Car.BOX),
        PickContract("A1"),
    ]
    state = act(state, PickCar(Car.BOX))
    assert state.players[0].money == 5 and label(state) is Label.RAISE_CASH
    assert list(RULES.legal_actions(state, 0).listing() or []) == [PickContract("A1")]
    state = act(state, PickContract("A1"))
    assert state.players[0].money == 0 and contract_ids(state, 0) == []
    assert BOARD.contract_ids.index("A1") in state.stacks[0]
    assert events(state, "debt_forgiven") == [
        {"number": state.number - 1, "kind": "debt_forgiven", "seat": 0, "amount": 10}
    ]
    assert active(state) == 1


# 14 ------------------------------------------------------------------------------------------
SIX_CONTRACTS = ["A1", "B1", "C1", "D1", "E1", "F1"]


def test_passing_central_station_with_six_contracts_wins() -> None:
    state = edit(neutral(), 0, position="I10", contracts=SIX_CONTRACTS)
    state = act(state, roll(), dice=(2, 3))  # I11, I12, CENTRAL, O0, O1/I1
    assert state.termination is Termination.COMPLETED and state.winner == 0
    assert RULES.outcome(state).ranks[0] == 1  # type: ignore[union-attr]


def test_passing_central_station_with_five_contracts_does_not_win() -> None:
    state = edit(neutral(), 0, position="I10", contracts=SIX_CONTRACTS[:5])
    state = act(state, roll(), dice=(2, 3))
    assert state.termination is None and label(state) is Label.ROUTE


def test_exact_option_needs_a_stop_on_central_station() -> None:
    state = edit(neutral(win_central="exact"), 0, position="I10", contracts=SIX_CONTRACTS)
    passed = act(state, roll(), dice=(2, 3))
    assert passed.termination is None
    landed = act(state, roll(), dice=(1, 2))
    assert landed.winner == 0


def test_a_contract_lost_just_before_central_station_means_no_win(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unhappy_last_space(raw: dict[str, Any]) -> None:
        for entry in raw["spaces"]:
            if entry["id"] == "I12":
                entry["kind"] = "dissatisfied_customer"

    board = board_variant("unhappy.json", unhappy_last_space)
    monkeypatch.setitem(BOARDS, board.name, board)
    state = on_board(neutral(2), board)
    state = edit(state, 0, position="I10", contracts=SIX_CONTRACTS)
    state = act(state, roll(), dice=(1, 1, 1, 2, 3, 4, 5, 6))  # onto I12, three misses
    state = act(state, PickContract("F1"))
    assert len(contract_ids(state, 0)) == 5
    state = act(state, roll(), dice=(1, 2))  # seat 1
    state = act(state, roll(), dice=(1, 2))  # seat 0 passes Central Station with 5
    assert state.termination is None and label(state) is Label.ROUTE


# 15 ------------------------------------------------------------------------------------------
def test_passenger_income_across_six_players_with_varying_cash() -> None:
    state = neutral(6)
    state = edit(state, 0, position="O27", cars={"passenger": 2})
    state = edit(state, 1, money=30)
    state = edit(state, 2, money=4, cars={"box": 1})
    state = edit(state, 3, money=0)
    state = edit(state, 4, money=10)
    state = edit(state, 5, money=7, contracts=["A1"])
    state = act(turn_of(state, 0), roll(), dice=(1, 2))  # O30: fee 2 x 5 = 10 from each
    happened = events(state)
    assert label(state) is Label.RAISE_CASH and state.prompt.seat == 2  # type: ignore[union-attr]
    state = act(state, PickCar(Car.BOX))
    happened += events(state)
    assert label(state) is Label.RAISE_CASH and state.prompt.seat == 5  # type: ignore[union-attr]
    state = act(state, PickContract("A1"), dice=(4,))  # then the die for buying crew cards
    happened += events(state)
    assert label(state) is Label.BUY_CREW and state.prompt.value == 4  # type: ignore[union-attr]
    money = [p.money for p in state.players]
    assert money == [100 + 10 + 9 + 0 + 10 + 10, 20, 0, 0, 0, 2]
    payers = [e["seat"] for e in happened if e["kind"] in ("paid", "debt_forgiven")]
    assert payers == [1, 2, 2, 3, 4, 5]
    state = act(state, Buy(2))
    assert state.players[0].money == money[0] - 20 and sum(state.players[0].hand) == 2
