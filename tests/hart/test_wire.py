"""JSON wire forms: round trips, junk rejected with InvalidAction, and views match the docs."""

from __future__ import annotations

import json
import re

import pytest

import engines.hart.wire as wire_module
from engines import HashRng, InvalidAction
from engines.driver import MatchDriver
from engines.hart.actions import (
    Accept,
    Appoint,
    Declare,
    Inspect,
    Keep,
    Offer,
    Open,
    Pack,
    Pass,
    Seize,
)
from engines.hart.state import Bag
from tests.hart.build import RULES, C, J, S, X

EXAMPLES = [
    (Pack(Bag.of([C, J, J])), {"type": "pack", "goods": ["jug", "jug", "cigar"]}),
    (Declare(3, S), {"type": "declare", "count": 3, "good": "sombrero"}),
    (Inspect(2), {"type": "inspect", "seat": 2}),
    (Seize(1), {"type": "seize", "seat": 1}),
    (Pass(), {"type": "pass"}),
    (Offer(15), {"type": "offer", "amount": 15}),
    (Accept(), {"type": "accept"}),
    (Open(), {"type": "open"}),
    (Keep(Bag.of([X])), {"type": "keep", "goods": ["statue"]}),
    (Keep(Bag()), {"type": "keep", "goods": []}),
    (Appoint(0), {"type": "appoint", "seat": 0}),
]


@pytest.mark.parametrize(("action", "wire"), EXAMPLES)
def test_actions_round_trip(action: object, wire: dict) -> None:
    assert RULES.dump_action(action) == wire
    assert RULES.parse_action(0, json.loads(json.dumps(wire))) == action


def test_goods_may_come_in_any_order() -> None:
    wire = {"type": "pack", "goods": ["cigar", "jug", "jug"]}
    assert RULES.parse_action(0, wire) == Pack(Bag.of([J, J, C]))


@pytest.mark.parametrize(
    ("wire", "message"),
    [
        ("pack", "JSON object"),
        ([1, 2], "JSON object"),
        ({}, "'type' must be one of"),
        ({"type": "smuggle"}, "'type' must be one of"),
        ({"type": 3}, "'type' must be one of"),
        ({"type": "offer"}, "lacks \\['amount'\\]"),
        ({"type": "offer", "amount": "5"}, "'amount' must be an integer"),
        ({"type": "offer", "amount": True}, "'amount' must be an integer"),
        ({"type": "offer", "amount": 5.0}, "'amount' must be an integer"),
        ({"type": "offer", "amount": 5, "note": "hi"}, "unknown key\\(s\\) \\['note'\\]"),
        ({"type": "declare", "count": 3, "good": "Jug"}, "unknown good 'Jug'"),
        ({"type": "declare", "count": 3}, "lacks \\['good'\\]"),
        ({"type": "pack", "goods": "jug"}, "must be a list"),
        ({"type": "pack", "goods": ["jug", "gold"]}, "unknown good 'gold'"),
        ({"type": "pack", "goods": [1]}, "unknown good 1"),
        ({"type": "inspect", "seat": None}, "'seat' must be an integer"),
        ({"type": "pass", "seat": 1}, "unknown key"),
    ],
)
def test_junk_is_an_invalid_action(wire: object, message: str) -> None:
    with pytest.raises(InvalidAction, match=message) as info:
        RULES.parse_action(2, wire)
    assert info.value.seat == 2


def test_bad_json_text_is_an_invalid_action() -> None:
    with pytest.raises(InvalidAction, match="not valid JSON"):
        RULES.parse_wire(0, "{type: pack")


def documented(section: str) -> dict[str, set[str]]:
    """Keys per name from a block of the wire docstring: `name  key: type, key: type ...`."""
    doc = wire_module.__doc__ or ""
    block = doc.split(section, 1)[1]
    found: dict[str, set[str]] = {}
    current = None
    for line in block.splitlines()[1:]:
        match = re.match(r"^    (\w+)\s{2,}(.*)$", line)
        if match:
            current = match.group(1)
            found[current] = set()
            rest = match.group(2)
        elif current and line.startswith(" " * 8):
            rest = line
        else:
            continue
        rest = rest.split("  ", 1)[0] if match else rest.strip().split("   ", 1)[0]
        found[current] |= set(re.findall(r"(\w+): ", rest))
    return found


def all_views(seats: int, seed: int) -> list[dict]:
    """Every view a seat or a spectator gets in one random match (the driver adds the events)."""
    driver = MatchDriver(RULES, seats, {}, seed)
    views = []
    while True:
        for viewer in [*range(seats), None]:
            observed = RULES.dump_observation(RULES.observe(driver.state, viewer))
            assert "events" not in observed  # the driver keeps the events, not the game
            views.append(driver.view(viewer))
        decision = driver.decision
        if decision is None:
            return views
        rng = HashRng(seed, f"wire:{decision.number}")
        driver.play({s: driver.space(s).sample(rng) for s in decision.seats})


VIEW_KEYS = {
    "viewer", "phase", "round", "rounds", "turn", "turns_per_round", "sheriff", "to_act",
    "traders", "selected", "deck", "discard", "sale_caps", "options", "players", "bribe", "me",
    "events",
}  # fmt: skip


@pytest.mark.parametrize("seats", [3, 5])
def test_views_have_exactly_the_documented_keys(seats: int) -> None:
    events = documented("per kind, exactly these further keys")
    assert len(events) >= 20
    doc = wire_module.__doc__ or ""
    kinds_seen = set()
    for view in all_views(seats, seats):
        assert set(view) == VIEW_KEYS
        for key in VIEW_KEYS:
            assert re.search(rf"\b{key}\b", doc), f"view key {key} is not documented"
        for player in view["players"]:
            assert set(player) == {
                "seat", "money", "hand", "suitcase", "declaration", "behind", "under",
                "seizure_token", "extra_control_token",
            }  # fmt: skip
        if view["me"] is not None:
            assert set(view["me"]) == {"hand", "suitcase", "behind", "under"}
        if view["bribe"] is not None:
            assert set(view["bribe"]) == {
                "seat", "sheriff", "control", "offers", "trader_offers_left",
                "sheriff_offers_left",
            }  # fmt: skip
        for event in view["events"]:
            kind = event["kind"]
            kinds_seen.add(kind)
            assert kind in events, f"event kind {kind} is not documented"
            assert set(event) - {"number", "kind"} == events[kind], kind
        json.dumps(view)
    assert {"turn", "pack", "declare", "sell", "game_over", "final_sale"} <= kinds_seen


def test_views_are_copies() -> None:
    driver = MatchDriver(RULES, 4, {}, 1)
    view = driver.view(0)
    lists = 0
    for event in view["events"]:
        for value in event.values():
            if isinstance(value, list):
                value.append("junk")
                lists += 1
    assert lists
    again = driver.view(0)
    assert "junk" not in json.dumps(again)
