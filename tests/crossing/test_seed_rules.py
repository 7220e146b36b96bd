"""Issue 13: places where the engine departed from an explicit sentence of the seed rulebook.

Each test quotes the sentence of `shared/seeds/001_74203d8a543cb775.txt` it holds the engine to,
in Chinese and in English, and builds its position with the public scenario builder.
"""

from __future__ import annotations

import pytest

from engines.api import Termination
from engines.crossing.actions import Accept, Pass, PickCar, PickContract, PickSpace
from engines.crossing.data import Car
from engines.crossing.scenario import ScenarioError, SeatSetup, scenario
from engines.crossing.state import Label
from tests.crossing.build import BOARD, RULES, act, cars, contract_ids, label, roll, space

PARK = {1: SeatSetup(position="O29"), 2: SeatSetup(position="O34"), 3: SeatSetup(position="O38")}
"""Idle locomotives on plain spaces, out of the way."""


def _seat(**fields: object) -> SeatSetup:
    base: dict[str, object] = {"money": 100, "cars": {}, "hand": {}, "contracts": ()}
    base.update(fields)
    return SeatSetup(**base)  # type: ignore[arg-type]


def _quiet(seats: int = 4) -> dict[int, SeatSetup]:
    return {s: _seat(position=PARK[s].position) for s in range(1, seats)}


def test_the_cap_counts_rounds_so_an_extra_turn_takes_no_seat_s_turn() -> None:
    # 「從起始玩家開始」「依順時針方向」「各玩家輪流依序進行」: from the start player, clockwise,
    # each player takes a turn in order. The cap counts rounds of such turns, so an extra turn
    # (ROLL AGAIN) cannot cost the last seat its turn.
    players = {0: _seat(position="O8"), 1: _seat(position="O19"), 2: _seat(position="O36")}
    state = scenario(3, players=players, options={"round_cap": 1})
    state = act(state, roll(), dice=(1, 2))  # O11: ROLL AGAIN
    assert state.turn.active == 0 and state.turn.chain == 1
    state = act(state, roll(), dice=(1, 2))  # O14, plain
    assert state.turn.active == 1
    state = act(state, roll(), dice=(1, 2))  # O22, plain
    assert state.turn.active == 2 and state.prompt is not None
    state = act(state, roll(), dice=(1, 2))  # O39, plain: the round is over, and so is the cap
    assert state.termination is Termination.TURN_LIMIT and state.prompt is None


def test_short_of_cash_the_player_chooses_a_car_or_a_contract() -> None:
    # 「當玩家現金不足支付費用時」「須以半價賣出車輛或契約至銀行取得現金」: a player who cannot
    # pay must sell cars or contracts to the bank at half price.
    seat = _seat(position="O30", money=0, cars={"box": 1}, contracts=("A1",))
    state = scenario(4, players={**_quiet(), 0: seat})
    state = act(state, roll(), dice=(1, 2))  # O33: tax 20
    assert label(state) is Label.RAISE_CASH
    offered = set(RULES.legal_actions(state, 0).listing() or [])
    assert offered == {PickCar(Car.BOX), PickContract("A1")}
    state = act(state, PickContract("A1"))  # the contract first, keeping the car
    assert contract_ids(state, 0) == [] and cars(state, 0) == {"box": 1}


def test_double_cross_may_be_declined() -> None:
    # 「可從其他任一玩家面前桌上拿取1張契約卡」: may take a contract from any other player.
    players = {**_quiet(), 0: _seat(position="O3"), 2: _seat(position="O34", contracts=("B1",))}
    state = act(scenario(4, players=players), roll(), dice=(1, 2))  # O6: DOUBLE CROSS
    assert label(state) is Label.DOUBLE_CROSS
    assert Pass() in RULES.legal_actions(state, 0)
    state = act(state, Pass())
    assert contract_ids(state, 2) == ["B1"] and state.turn.active == 1


def test_roundhouse_may_stay_after_a_double() -> None:
    # 「若三次擲骰中」「出現2顆骰子點數相同情況」「可將自家機車代表物移至圖板上任一方格內」: after
    # a double the player may move the locomotive to any space.
    state = scenario(4, players={**_quiet(), 0: _seat(position="O10")})
    state = act(state, roll(), dice=(2, 3, 4, 4))  # O15: ROUNDHOUSE, a double at once
    assert label(state) is Label.ROUNDHOUSE
    legal = RULES.legal_actions(state, 0)
    assert Pass() in legal and PickSpace(space("I7")) in legal
    state = act(state, Pass())
    assert state.players[0].position == space("O15") and state.turn.active == 1


@pytest.mark.parametrize("rolls", [True, False])
def test_train_shop_may_roll_or_not(rolls: bool) -> None:
    # 「當玩家棋子停留在此格時」「可擲1顆骰子」「根據擲骰結果而免費拿取…1台對應車輛」: the player
    # may roll one die and take the matching car free.
    state = scenario(4, players={**_quiet(), 0: _seat(position="I1")})
    state = act(state, roll(), dice=(1, 1))  # I3: TRAIN SHOP (a double: no card to discard)
    assert label(state) is Label.TRAIN_SHOP
    assert set(RULES.legal_actions(state, 0).listing() or []) == {Accept(), Pass()}
    state = act(state, Accept(), dice=(6,)) if rolls else act(state, Pass())
    assert cars(state, 0) == ({"tank": 1} if rolls else {})


def test_villain_may_target_a_player_still_on_start() -> None:
    # 「可指定其他任一玩家的車輛出軌」: the Villain names any other player; no sentence excludes
    # a player whose locomotive is still on START.
    players = {
        **_quiet(),
        0: _seat(position="O10", hand={"villain": 1}),
        2: _seat(position="START", cars={"box": 1}),
    }
    state = scenario(4, players=players)
    assert roll(villain=2) in RULES.legal_actions(state, 0)
    state = act(state, roll(villain=2), dice=(1, 3))
    assert cars(state, 2) == {} and state.loose[space("START")] == (Car.BOX,)


def test_connections_buys_the_contract_without_its_cars_by_default() -> None:
    # 「可以半價購買任何一張置於圖板對應交易格下方桌面的契約卡」: buy any contract lying at a
    # TRADE space at half price; nothing is said of cars.
    state = scenario(4, players={**_quiet(), 0: _seat(position="O34", money=10)})
    assert not state.settings.connections_cars
    state = act(state, roll(), dice=(1, 1))  # O36: CONNECTIONS
    state = act(state, PickContract("C1"))
    assert contract_ids(state, 0) == ["C1"] and cars(state, 0) == {}
    with_cars = scenario(
        4,
        players={**_quiet(), 0: _seat(position="O34", money=10)},
        options={"connections_cars": True},
    )
    with_cars = act(with_cars, roll(), dice=(1, 1))
    assert label(with_cars) is not Label.CONNECTIONS  # no cars, so nothing to buy


def test_the_scenario_builder_refuses_impossible_positions() -> None:
    with pytest.raises(ScenarioError, match="held by seats 1 and 2"):
        scenario(3, players={1: SeatSetup(contracts=("A1",)), 2: SeatSetup(contracts=("A1",))})
    with pytest.raises(ScenarioError, match="not enough tank cars"):
        scenario(2, players={0: SeatSetup(cars={"tank": 4}), 1: SeatSetup(cars={"tank": 4})})
    with pytest.raises(ScenarioError, match="no space is called 'O99'"):
        scenario(2, players={0: SeatSetup(position="O99")})
    with pytest.raises(ScenarioError, match="a rack holds 6"):
        scenario(2, players={0: SeatSetup(cars={"box": 4, "tank": 3})})
    with pytest.raises(ScenarioError, match="no stop card left"):
        scenario(2, players={0: SeatSetup(hand={"stop": BOARD.crew_count[3] + 1})})
