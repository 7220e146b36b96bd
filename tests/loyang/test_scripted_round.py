"""A full scripted round (harvest, card phase, action phase): exact cash, crops and positions."""

from __future__ import annotations

from engines.loyang.state import Phase, Regular, Stall
from tests.loyang.support import RULES, act, acting, blank, crops, field


def _round_two_end() -> object:
    seat0 = blank(
        cash=4,
        position=3,
        fields=(field("home", "wheat", 6), field("P4a")),
        stack=("P5a", "P6a", "P3a", "P3b", "P4b", "P5b", "P6b"),
        store=crops(bean=1),
        regulars=(Regular("RC01", start=2, rows=1, last=2, times=1),),
    )
    seat1 = blank(
        cash=0,
        position=4,
        fields=(field("home", "turnip", 6), field("P3a", "leek", 1)),
        stack=("P6b", "P3b", "P4a", "P4b", "P5a", "P5b", "P6a"),
    )
    deck = ("CC01", "H01", "MS01", "CF01", "RC02", "H08", "CC02", "H17", "H02", "H03")
    return acting([seat0, seat1], seat=1, round_=2, seats_after=[], start=0, second=1, deck=deck)


def _step(state: object, seat: int, wire: dict[str, object]) -> object:
    decision = RULES.decision(state)  # type: ignore[arg-type]
    assert decision is not None and decision.seats == {seat}, (decision, wire)
    return act(state, seat, wire)  # type: ignore[arg-type]


def test_a_full_scripted_round() -> None:
    state = _step(_round_two_end(), 1, {"type": "end_turn"})  # seat 1 cannot store or pay
    # -- round 3: harvest ---------------------------------------------------------------
    assert state.round == 3 and state.phase is Phase.CARD  # type: ignore[attr-defined]
    p0, p1 = state.players  # type: ignore[attr-defined]
    assert [(f.id, f.count) for f in p0.fields] == [("home", 5), ("P4a", 0), ("P5a", 0)]
    assert p0.cart == crops(wheat=1, bean=1) and p0.store == crops()
    assert [(f.id, f.count) for f in p1.fields] == [("home", 5), ("P6b", 0)]  # P3a is gone
    assert p1.cart == crops(turnip=1, leek=1)
    assert p0.hand == ("CC01", "H01", "MS01", "CF01") and p1.hand == ("RC02", "H08", "CC02", "H17")
    # -- card phase ---------------------------------------------------------------------
    state = _step(state, 0, {"type": "play", "card": "CF01"})
    state = _step(state, 1, {"type": "take", "courtyard": "CF01", "hand": "H17"})
    assert RULES.decision(state).label == "pay"  # type: ignore[arg-type, union-attr]
    state = _step(state, 1, {"type": "sell", "crop": "leek"})  # 2 coins pay for the field
    assert state.players[1].cash == 0  # type: ignore[attr-defined]
    assert state.courtyard == ("RC02", "H08", "CC02")  # type: ignore[attr-defined]
    state = _step(state, 0, {"type": "take", "courtyard": "H08", "hand": "MS01"})
    assert state.phase is Phase.ACTION  # type: ignore[attr-defined]
    assert (state.start, state.second) == (0, 1)  # type: ignore[attr-defined]
    assert state.discard == ("RC02", "CC02", "CC01", "H01")  # type: ignore[attr-defined]
    # -- seat 0's action turn -----------------------------------------------------------
    state = _step(state, 0, {"type": "use_helper", "card": "H08"})  # 2 wheat
    state = _step(
        state, 0, {"type": "trade", "stall": "MS01", "crop": "leek", "give": ["wheat", "wheat"]}
    )
    state = _step(state, 0, {"type": "deliver", "customer": "RC01"})  # second row: 8
    state = _step(state, 0, {"type": "buy", "crop": "turnip"})
    state = _step(state, 0, {"type": "sow", "field": "P5a", "crop": "turnip"})
    state = _step(
        state, 0, {"type": "trade", "stall": "MS01", "crop": "pumpkin", "give": ["wheat"]}
    )
    state = _step(state, 0, {"type": "buy_pair"})  # 1 stall, no helper left: 1 coin
    assert state.turns[0].drawn == ("H02", "H03")  # type: ignore[attr-defined]
    state = _step(state, 0, {"type": "keep", "cards": ["H02"]})
    state = _step(state, 0, {"type": "use_helper", "card": "H02"})  # Haggler: 1 off
    state = _step(state, 0, {"type": "buy", "crop": "cabbage"})
    state = _step(state, 0, {"type": "sow", "field": "P4a", "crop": "cabbage"})
    me = state.players[0]  # type: ignore[attr-defined]
    assert (me.cash, me.cart) == (4 + 8 - 5 - 1 - 4, crops(pumpkin=1))
    state = _step(state, 0, {"type": "end_turn"})
    state = _step(state, 0, {"type": "store", "crop": "pumpkin"})
    assert [a["steps"] for a in _advances(state, 0)] == [1]
    state = _step(state, 0, {"type": "advance", "steps": 1})
    p0 = state.players[0]  # type: ignore[attr-defined]
    assert (p0.cash, p0.position, p0.store, p0.cart) == (1, 4, crops(pumpkin=1), crops())
    assert [(f.id, f.crop.wire if f.crop is not None else None, f.count) for f in p0.fields] == [
        ("home", "wheat", 5),
        ("P4a", "cabbage", 4),
        ("P5a", "turnip", 5),
    ]
    assert p0.stalls == (Stall("MS01", crops(bean=1)),)
    assert p0.regulars[0].rows == 2 and p0.regulars[0].good
    # -- seat 1's action turn -----------------------------------------------------------
    state = _step(state, 1, {"type": "use_helper", "card": "H17"})  # 3 coins
    state = _step(state, 1, {"type": "sow", "field": "CF01", "crop": "turnip"})
    state = _step(state, 1, {"type": "buy", "crop": "wheat"})
    state = _step(state, 1, {"type": "sow", "field": "P6b", "crop": "wheat"})
    assert state.players[1].cash == 0  # type: ignore[attr-defined]
    state = _step(state, 1, {"type": "end_turn"})  # nothing to store, nothing to pay with
    # -- round 4 begins: the harvest ----------------------------------------------------
    assert state.round == 4  # type: ignore[attr-defined]
    p0, p1 = state.players  # type: ignore[attr-defined]
    assert (p0.cash, p0.position, p1.cash, p1.position) == (1, 4, 0, 4)
    assert p0.cart == crops(wheat=1, cabbage=1, turnip=1, pumpkin=1)
    assert [(f.id, f.count) for f in p0.fields] == [("home", 4), ("P4a", 3), ("P5a", 4), ("P6a", 0)]
    assert p1.cart == crops(turnip=2, wheat=1)
    assert [(f.id, f.count) for f in p1.fields] == [
        ("home", 4),
        ("P6b", 5),
        ("CF01", 1),
        ("P3b", 0),
    ]


def _advances(state: object, seat: int) -> list[dict[str, object]]:
    return [
        RULES.dump_action(a)  # type: ignore[misc]
        for a in RULES.legal_actions(state, seat).actions  # type: ignore[arg-type]
        if RULES.dump_action(a)["type"] == "advance"  # type: ignore[index]
    ]
