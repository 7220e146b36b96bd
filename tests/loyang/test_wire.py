"""Wire forms: parsing junk, round trips, what each seat may see, and the documented keys."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

import pytest

from engines import HashRng, InvalidAction
from engines.driver import MatchDriver
from engines.loyang import wire
from tests.loyang.support import RULES, acting, blank


@pytest.mark.parametrize(
    ("junk", "message"),
    [
        ("sow", "JSON object"),
        ({"crop": "wheat"}, "no 'type'"),
        ({"type": "dance"}, "unknown action type 'dance'"),
        ({"type": "buy"}, r"needs key\(s\) \['crop'\]"),
        ({"type": "buy", "crop": "rice"}, "'crop' must be a crop name"),
        ({"type": "buy", "crop": "wheat", "count": 2}, r"has no key\(s\) \['count'\]"),
        ({"type": "end_turn", "now": True}, "has no key"),
        ({"type": "play", "card": "XX99"}, "'card' must be a card id"),
        ({"type": "sow", "field": "P9z", "crop": "wheat"}, "'field' must be a card id"),
        ({"type": "trade", "stall": "MS01", "crop": "bean", "give": []}, "1 or 2 crops"),
        ({"type": "trade", "stall": "MS01", "crop": "bean", "give": ["a", "b"]}, "crop names"),
        ({"type": "keep", "cards": ["H01", "H01"]}, "a card twice"),
        ({"type": "keep", "cards": ["H01", "H02", "H03"]}, "at most 2"),
        ({"type": "grid_buy", "row": True, "col": 0}, "'row' must be an integer"),
        ({"type": "advance", "steps": 0}, r"'steps' must be an integer in 1\.\.1000"),
        ({"type": "use_helper", "card": "MS01"}, "not a helper"),
        ({"type": "use_helper", "card": "H03"}, r"needs key\(s\) \['bonus'\]"),
        ({"type": "use_helper", "card": "H03", "bonus": "all"}, "'bonus' must be"),
        ({"type": "use_helper", "card": "H01", "target": 1}, r"has no key\(s\) \['target'\]"),
    ],
)
def test_junk_is_rejected_with_a_reason(junk: Any, message: str) -> None:
    with pytest.raises(InvalidAction, match=message):
        RULES.parse_action(0, junk)


def test_give_is_normalised_to_sorted_order() -> None:
    a = RULES.parse_action(
        0, {"type": "trade", "stall": "MS01", "crop": "bean", "give": ["leek", "wheat"]}
    )
    b = RULES.parse_action(
        0, {"type": "trade", "stall": "MS01", "crop": "bean", "give": ["wheat", "leek"]}
    )
    assert a == b and RULES.dump_action(a)["give"] == ["wheat", "leek"]  # type: ignore[index]


def test_every_legal_action_round_trips_through_json() -> None:
    for seats in (1, 2, 4):
        driver = MatchDriver(RULES, seats, {}, 5)
        state = driver.state
        count = 0
        while (decision := RULES.decision(state)) is not None and count < 400:
            for seat in decision.seats:
                for action in RULES.legal_actions(state, seat).actions:
                    text = json.dumps(RULES.dump_action(action))
                    assert RULES.parse_action(seat, json.loads(text)) == action
            rng = HashRng(5, f"t{count}")
            joint = {s: RULES.legal_actions(state, s).sample(rng) for s in decision.seats}
            state = driver.play(joint).after
            count += 1


def test_a_seat_sees_its_own_hand_and_only_the_size_of_others() -> None:
    driver = MatchDriver(RULES, 3, {}, 2)
    state = driver.state
    while state.phase.value == "setup":
        decision = RULES.decision(state)
        assert decision is not None
        joint = {s: RULES.legal_actions(state, s).default() for s in decision.seats}
        state = driver.play(joint).after
    for viewer in range(3):
        view = RULES.observe(state, viewer)
        assert [c["id"] for c in view["hand"]] == list(state.players[viewer].hand)  # type: ignore[union-attr, index]
        text = json.dumps(view)
        for other in range(3):
            assert view["players"][other]["hand_size"] == 4  # type: ignore[index, call-overload]
            if other != viewer:
                assert not any(f'"{c}"' in text for c in state.players[other].hand)
    public = RULES.observe(state, None)
    assert public["hand"] is None
    assert json.dumps(public["players"]) == json.dumps(RULES.observe(state, 0)["players"])


def test_boards_are_public_and_the_stack_shows_only_a_count() -> None:
    state = acting([blank(cash=7), blank(cash=3)])
    view = RULES.observe(state, 1)
    me = view["players"][0]  # type: ignore[index]
    assert me["cash"] == 7 and me["private_stack"] == 8  # type: ignore[index]
    reordered = replace(
        state,
        players=(replace(state.players[0], stack=state.players[0].stack[::-1]), state.players[1]),
    )
    assert json.dumps(RULES.observe(reordered, 1)) == json.dumps(view)


def _documented(section: str) -> set[str]:
    doc = wire.__doc__ or ""
    body = doc.split(section, 1)[1]
    keys: set[str] = set()
    for line in body.splitlines()[1:]:
        if line and not line.startswith("    "):
            break
        match = re.match(r"^    ([a-z_]+(?:, [a-z_]+)*)\s{2,}", line)
        if match:
            keys.update(k.strip() for k in match.group(1).split(","))
    return keys


def test_the_documented_observation_keys_are_the_real_ones() -> None:
    state = MatchDriver(RULES, 2, {}, 0).state
    view = RULES.observe(state, 0)
    documented = _documented("Observation")
    assert set(view) <= documented, set(view) - documented
    for key in view["rules"]:  # type: ignore[union-attr]
        assert f'"{key}"' in (wire.__doc__ or ""), key
    doc = wire.__doc__ or ""
    player = RULES.observe(acting([blank(), blank()]), 0)["players"][0]  # type: ignore[index]
    for key in player:  # type: ignore[union-attr]
        assert key in doc, key


def test_every_action_type_is_documented() -> None:
    doc = wire.__doc__ or ""
    state = replace(acting([blank(), blank()]))
    types = {RULES.dump_action(a)["type"] for a in RULES.legal_actions(state, 0).actions}  # type: ignore[index]
    types |= {"setup_sow", "play", "reveal", "take", "grid_buy", "pick_opponent", "keep"}
    types |= {"store", "finish_storing", "advance", "finish_scoring", "use_helper", "dismiss"}
    types |= {"deliver", "serve", "trade"}
    for kind in types:
        assert f'"type": "{kind}"' in doc, kind
