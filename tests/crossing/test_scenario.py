"""The Double Crossing scenario builder conserves cars, crew cards and contracts over the whole
position, whatever the seat order in which the seats are named."""

from __future__ import annotations

import pytest

from engines.crossing.components import CARS, CREWS
from engines.crossing.scenario import ScenarioError, SeatSetup, scenario

BOX = [car.value for car in CARS].index("box")
ENGINEER = [crew.value for crew in CREWS].index("engineer")


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("seed", [0, 7])
def test_any_seat_may_take_every_box_car_the_others_give_back(seats: int, seed: int) -> None:
    for taker in range(seats):
        players = {seat: SeatSetup(cars={}) for seat in range(seats)}
        players[taker] = SeatSetup(cars={"box": 6})
        state = scenario(seats, seed=seed, players=players)
        assert state.players[taker].rack[BOX] == 6
        assert all(sum(p.rack) == 0 for s, p in enumerate(state.players) if s != taker)


@pytest.mark.parametrize("seats", [2, 4, 6])
def test_any_seat_may_hold_every_engineer_card(seats: int) -> None:
    total = scenario(seats, seed=7).board.crew_count[ENGINEER]
    for holder in range(seats):
        players = {seat: SeatSetup(hand={}) for seat in range(seats)}
        players[holder] = SeatSetup(hand={"engineer": total})
        state = scenario(seats, seed=7, players=players)
        assert state.players[holder].hand[ENGINEER] == total
        assert sum(pile.count(ENGINEER) for pile in state.piles) == 0


def test_a_contract_given_up_by_a_later_seat_may_be_taken_by_an_earlier_one() -> None:
    contract = scenario(4, seed=7).board.contract_ids[0]
    first = scenario(4, seed=7, players={3: SeatSetup(contracts=(contract,))})
    moved = scenario(
        4, seed=7, players={0: SeatSetup(contracts=(contract,)), 3: SeatSetup(contracts=())}
    )
    assert first.players[3].contracts == moved.players[0].contracts == (0,)
    assert moved.players[3].contracts == ()


def test_more_cars_than_the_game_has_still_fail() -> None:
    players = {seat: SeatSetup(cars={}) for seat in range(4)}
    players[0] = SeatSetup(cars={"box": 6})
    players[2] = SeatSetup(cars={"box": 1})
    with pytest.raises(ScenarioError, match="not enough box cars"):
        scenario(4, seed=7, players=players)
