"""Wire forms of actions, what each seat may see, and the no-leak re-deal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engines.crossing.actions import (
    Buy,
    BuyCar,
    BuyCards,
    Discard,
    Pass,
    PickCar,
    PickContract,
    PickSeat,
    PickSpace,
    PlayStop,
    Roll,
)
from engines.crossing.data import Car, Crew
from engines.crossing.state import CrewMode
from engines.driver import MatchDriver
from engines.errors import InvalidAction
from engines.rng import HashRng
from tests.crossing.build import RULES, begin, edit, turn_of

EVERY_FORM = [
    Pass(),
    PlayStop(),
    Roll(CrewMode.SLOW_REVERSE, 2, True),
    Roll(),
    BuyCards(None),
    BuyCards(1),
    Buy(3),
    BuyCar(),
    PickCar(Car.HOPPER),
    Discard(Crew.ENGINEER),
    PickSpace(41),
    PickContract("K2"),
    PickSeat(5),
]


@pytest.mark.parametrize("action", EVERY_FORM, ids=repr)
def test_every_action_round_trips_as_a_flat_object(action: Any) -> None:
    wire = json.loads(json.dumps(RULES.dump_action(action)))
    assert isinstance(wire, dict) and isinstance(wire["type"], str)
    assert all(not isinstance(v, dict | list) for v in wire.values())
    assert RULES.parse_action(0, wire) == action


JUNK = [
    ("roll", "a Double Crossing action is a JSON object"),
    ({}, "unknown action type None"),
    ({"type": "fly"}, "unknown action type 'fly'"),
    ({"type": "pass", "x": 1}, r"unexpected \['x'\]"),
    ({"type": "roll", "crew": "none", "villain": None}, r"missing \['engineer'\]"),
    ({"type": "roll", "crew": "fast", "villain": None, "engineer": False}, "'crew' of a 'roll'"),
    ({"type": "roll", "crew": "none", "villain": None, "engineer": 1}, "true or false"),
    ({"type": "roll", "crew": "none", "villain": "2", "engineer": False}, "or null"),
    ({"type": "buy", "count": -1}, "non-negative integer"),
    ({"type": "buy", "count": True}, "non-negative integer"),
    ({"type": "car", "car": "caboose"}, "'car' of a 'car' action must be one of"),
    ({"type": "discard", "card": "joker"}, "'card' of a 'discard' action"),
    ({"type": "contract", "contract": 7}, "contract id string"),
    ({"type": "space", "space": 1.5}, "non-negative integer"),
]


@pytest.mark.parametrize(("wire", "message"), JUNK, ids=[m for _, m in JUNK])
def test_junk_is_rejected_naming_what_is_wrong(wire: Any, message: str) -> None:
    with pytest.raises(InvalidAction, match=message) as info:
        RULES.parse_action(3, wire)
    assert info.value.seat == 3


def test_a_seat_sees_its_own_hand_and_only_counts_of_the_others() -> None:
    driver = MatchDriver(RULES, 4, {}, 11)
    for viewer in range(4):
        view = driver.view(viewer)
        assert sum(view["hand"].values()) == 4
        assert [p["hand_count"] for p in view["players"]] == [4, 4, 4, 4]
        assert all("hand" not in player for player in view["players"])
    public = driver.view(None)
    assert public["hand"] is None
    drawn = [e for e in public["events"] if e["kind"] == "drew_cards"]
    assert drawn == [], "the cards a seat drew are its own business"
    mine = [e for e in driver.view(2)["events"] if e["kind"] == "drew_cards"]
    assert [e["seat"] for e in mine] == [2] and len(mine[0]["cards"]) == 4


def test_scramble_redeals_hidden_cards_without_changing_the_view() -> None:
    state = begin(4, seed=3)
    changed = 0
    for viewer in [0, 1, 2, 3, None]:
        for k in range(5):
            other = RULES.scramble(state, viewer, HashRng(k, "test"))
            assert RULES.observe(other, viewer) == RULES.observe(state, viewer)
            if viewer is not None:
                assert other.players[viewer].hand == state.players[viewer].hand
            assert [sum(p.hand) for p in other.players] == [sum(p.hand) for p in state.players]
            changed += other != state
    assert changed > 10


def test_the_board_rides_with_the_views_of_seats_that_act_on_it() -> None:
    state = edit(edit(begin(3, seed=1), 1, hand={"stop": 1}), 2, hand={})
    state = turn_of(edit(state, 0, position="O10", hand={}), 0)
    assert state.prompt is not None and state.prompt.seats == (0, 1)
    active, stopper, idle = (RULES.observe(state, s) for s in (0, 1, 2))
    assert active["board"]["spaces"][10]["kind"] == "corner_station"
    assert stopper["board"] is None and idle["board"] is None
    assert RULES.observe(state, None)["board"] is None
    assert active["board_name"] == stopper["board_name"] == "board.json"
    assert active["decision"] == {"label": "declare", "seats": [0, 1], "about": 0}


def test_each_seat_sees_what_happened_since_it_last_decided() -> None:
    driver = MatchDriver(RULES, 2, {}, 1)
    kinds = [e["kind"] for e in driver.view(1)["events"]]
    assert "setup_roll" in kinds, "before its first decision a seat sees the setup"
    declare = driver.decision
    assert declare is not None and declare.seats == {0, 1} and declare.label == "declare"
    driver.play({seat: driver.default(seat) for seat in declare.seats})  # seat 1 rolls
    route = driver.decision
    assert route is not None and route.seats == {1} and route.label == "route"
    driver.play({1: driver.default(1)})  # seat 1 moves; seat 0 did not decide
    kinds1 = [e["kind"] for e in driver.view(1)["events"]]
    assert "moved" in kinds1 and "rolled" not in kinds1 and "setup_roll" not in kinds1
    kinds0 = [e["kind"] for e in driver.view(0)["events"]]
    assert "rolled" in kinds0 and "moved" in kinds0 and "setup_roll" not in kinds0
    public = [e["kind"] for e in driver.view(None)["events"]]
    assert "moved" in public and "rolled" not in public


def _strictly_equal(a: object, b: object) -> bool:
    """Equal with the same types all the way down (a tuple is not a list here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_strictly_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_a_views_board_is_a_fresh_copy_of_the_static_section_as_json_gives_it() -> None:
    import json

    from engines.crossing import view

    for name, board in view.BOARDS.items():
        copy = view.board_json(name)
        assert _strictly_equal(copy, json.loads(json.dumps(view._static(board))))
        again = view.board_json(name)
        assert again is not copy and again["spaces"] is not copy["spaces"]
        copy["spaces"].clear()  # a consumer that edits its copy changes no other view
        assert view.board_json(name)["spaces"]
