"""Fuzz the answer boundary of every game: any Action a bot can send is a strike or is accepted.

Hypothesis builds arbitrary protobuf `Action`s (typed actions of any shape, indexes, JSON texts of
any shape and depth, legal actions with junk values) and feeds them through
`arena.referee.answers.to_action`, the function the match runner calls. Every answer must either
come back as a legal action (which then applies without error) or raise an `ActionError`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engines
from arena.referee import answers
from arena.v1 import bot_pb2, common_pb2
from engines import ActionError, HashRng, Rules
from engines.action_json import MAX_WIRE_CHARS, MAX_WIRE_DEPTH, load_wire
from engines.driver import MatchDriver

EXAMPLES = 2000
"""Answers per game per run (about 11 s per game on a loaded 2-core machine)."""
POSITIONS = 24
"""Positions per game the answers are tried against."""


@dataclass(frozen=True)
class Position:
    """A decision of a random match: the state, one seat that must answer, and its listing."""

    rules: Rules[Any, Any, Any]
    state: Any
    number: int
    seat: int
    listing: tuple[Any, ...]
    dumped: tuple[Any, ...]
    """Wire forms of the listed actions, or of a few sampled ones when the space is described."""


@functools.cache
def positions(game: str) -> tuple[Position, ...]:
    """Positions spread over the first decisions of a few random matches of `game`."""
    rules = engines.get(game)
    out: list[Position] = []
    for seed, seats in enumerate(rules.seat_counts):
        state = MatchDriver(rules, seats, {}, seed + 1).state
        for _ in range(240):
            decision = rules.decision(state)
            if decision is None:
                break
            rng = HashRng(seed, f"fuzz:{decision.number}")
            joint = {s: rules.legal_actions(state, s).sample(rng) for s in sorted(decision.seats)}
            if decision.number % 7 == 0:
                seat = min(decision.seats)
                space = rules.legal_actions(state, seat)
                listing = tuple(space.listing() or ())
                shown = listing or tuple(space.sample(rng) for _ in range(4))
                dumped = tuple(rules.dump_action(a) for a in shown)
                out.append(Position(rules, state, decision.number, seat, listing, dumped))
            state = rules.apply(state, joint, HashRng.for_decision(seed + 1, decision.number))
    step = max(1, len(out) // POSITIONS)
    return tuple(out[::step][:POSITIONS])


# -- strategies ------------------------------------------------------------------------------------
JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.integers(-3, 300)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=24,
)
INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}


def _scalar(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in field.enum_type.values]
        return st.sampled_from(known) | st.integers(-5, 1000) | st.integers(-(2**31), 2**31 - 1)
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_STRING:
        return st.text(max_size=16)
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=16)
    if kind == FieldDescriptor.TYPE_DOUBLE:
        return st.floats()
    if kind == FieldDescriptor.TYPE_FLOAT:
        return st.floats(width=32)
    low, high = INT_RANGES[kind]
    return st.integers(-3, 60).filter(lambda v: low <= v <= high) | st.integers(low, high)


@st.composite
def filled(draw: st.DrawFn, message: Message, depth: int = 0) -> Message:
    """`message` with a random subset of its fields set to random values, recursively."""
    descriptor: Descriptor = message.DESCRIPTOR
    for field in descriptor.fields:
        if not draw(st.booleans()):
            continue
        target = getattr(message, field.name)
        is_message = field.type == FieldDescriptor.TYPE_MESSAGE
        if is_message and field.message_type.GetOptions().map_entry:
            key_field = field.message_type.fields_by_name["key"]
            value_field = field.message_type.fields_by_name["value"]
            for _ in range(draw(st.integers(0, 3))):
                key = draw(_scalar(key_field))
                if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                    if depth < 4:
                        draw(filled(target[key], depth + 1))
                else:
                    target[key] = draw(_scalar(value_field))
        elif field.is_repeated:
            for _ in range(draw(st.integers(0, 4))):
                if is_message:
                    if depth < 4:
                        draw(filled(target.add(), depth + 1))
                else:
                    target.append(draw(_scalar(field)))
        elif is_message:
            if depth < 4:
                target.SetInParent()
                draw(filled(target, depth + 1))
        else:
            setattr(message, field.name, draw(_scalar(field)))
    return message


@st.composite
def typed_actions(draw: st.DrawFn, game: str) -> common_pb2.GameAction:
    """A `GameAction`: mostly of `game` with one action type set, sometimes of another game."""
    out = common_pb2.GameAction()
    games = [f.name for f in out.DESCRIPTOR.fields]
    chosen = draw(st.sampled_from([game] * 4 + games))
    typed = getattr(out, chosen)
    typed.SetInParent()
    kinds = [f.name for f in typed.DESCRIPTOR.fields]
    if draw(st.integers(0, 9)) > 0:
        sub = getattr(typed, draw(st.sampled_from(kinds)))
        sub.SetInParent()
        draw(filled(sub))
    return out


def _type_names(game: str) -> list[str]:
    typed = getattr(common_pb2.GameAction(), game)
    return [f.name for f in typed.DESCRIPTOR.fields]


def _keys_of(game: str, kind: str) -> list[str]:
    typed = getattr(common_pb2.GameAction(), game)
    return [f.name for f in typed.DESCRIPTOR.fields_by_name[kind].message_type.fields]


@st.composite
def json_texts(draw: st.DrawFn, game: str, position: Position) -> str:
    """A JSON text: arbitrary, deep, near-legal or not JSON at all."""
    shape = draw(st.integers(0, 5))
    if shape == 0:
        return json.dumps(draw(JSON_VALUES))
    if shape == 1:
        depth = draw(st.integers(0, 3000))
        inner = draw(st.sampled_from(["[", '{"a":', '{"type":[']))
        closer = {"[": "]", '{"a":': "}", '{"type":[': "]}"}[inner]
        return inner * depth + "0" + closer * depth
    if shape == 2:
        return draw(st.text(max_size=40))
    if shape == 3:  # the right type and key names with values of any shape
        kind = draw(st.sampled_from(_type_names(game)))
        keys = _keys_of(game, kind)
        body = draw(st.dictionaries(st.sampled_from(keys or ["type"]), JSON_VALUES, max_size=4))
        return json.dumps({"type": kind, **body})
    base = dict(draw(st.sampled_from(position.dumped)))
    if shape == 4 and base:  # a legal action with one value replaced
        key = draw(st.sampled_from(sorted(base)))
        base[key] = draw(JSON_VALUES)
    else:  # a legal action with a key added or removed
        if base and draw(st.booleans()):
            del base[draw(st.sampled_from(sorted(base)))]
        else:
            base[draw(st.text(max_size=8))] = draw(JSON_VALUES)
    return json.dumps(base)


@st.composite
def answers_for(draw: st.DrawFn, game: str) -> tuple[Position, bot_pb2.Action]:
    """A position of `game` and an arbitrary answer to it."""
    position = draw(st.sampled_from(positions(game)))
    number = draw(
        st.sampled_from([position.number] * 8 + [position.number + 1])
        | st.integers(-(2**31), 2**31 - 1)
    )
    action = bot_pb2.Action(match_id=1, decision=number)
    choice = draw(st.sampled_from(["index", "typed", "json", "json", "none"]))
    if choice == "index":
        action.index = draw(st.integers(-3, 300) | st.integers(-(2**31), 2**31 - 1))
    elif choice == "typed":
        action.typed.CopyFrom(draw(typed_actions(game)))
    elif choice == "json":
        action.json = draw(json_texts(game, position))
    return position, action


def _check(position: Position, action: bot_pb2.Action) -> str:
    """Feed one answer through the referee's boundary: "accepted" or "strike", never a crash."""
    rules = position.rules
    try:
        check = functools.partial(rules.check_answer, position.state)
        chosen = answers.to_action(
            rules, check, position.seat, position.number, action, position.listing
        )
    except ActionError as exc:
        assert str(exc), "a strike must say what was wrong"
        # The engines' own parsers reject junk: the boundary's catch-all is a second line only.
        assert "could not be read" not in str(exc), f"a parser raised on {action}: {exc}"
        return "strike"
    assert chosen in rules.legal_actions(position.state, position.seat)
    decision = rules.decision(position.state)
    assert decision is not None
    joint = {s: rules.legal_actions(position.state, s).default() for s in decision.seats}
    joint[position.seat] = chosen
    rules.apply(position.state, joint, HashRng.for_decision(0, decision.number))
    return "accepted"


@pytest.mark.parametrize("game", engines.names())
def test_any_answer_is_a_strike_or_accepted_never_an_exception(game: str) -> None:
    seen: dict[str, int] = {"strike": 0, "accepted": 0}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(answers_for(game))
    def fuzz(case: tuple[Position, bot_pb2.Action]) -> None:
        seen[_check(*case)] += 1

    fuzz()
    # The strategies reach both outcomes, so the property was exercised on each side.
    assert seen["strike"] > EXAMPLES // 2
    assert seen["accepted"] > 0


@pytest.mark.parametrize("game", engines.names())
def test_the_three_reported_killer_answers_are_strikes(game: str) -> None:
    position = positions(game)[0]
    deep = "[" * 1000 + "]" * 1000
    killers = [
        bot_pb2.Action(decision=position.number, json=deep),
        bot_pb2.Action(decision=position.number, json=json.dumps({"type": []})),
    ]
    typed = bot_pb2.Action(decision=position.number)
    typed.typed.hart.declare.count = 1
    typed.typed.hart.declare.good = 999  # type: ignore[assignment]
    killers.append(typed)
    for action in killers:
        assert _check(position, action) == "strike"


def test_a_parser_crash_becomes_a_strike_naming_the_error() -> None:
    position = positions("hart")[0]

    class Broken(type(position.rules)):  # type: ignore[misc]
        def parse_action(self, seat: int, wire: object) -> Any:
            raise KeyError("boom")

    broken = Position(
        Broken(),
        position.state,
        position.number,
        position.seat,
        position.listing,
        position.dumped,
    )
    with pytest.raises(engines.InvalidAction, match="KeyError"):
        answers.to_action(
            broken.rules,
            functools.partial(broken.rules.check_answer, broken.state),
            broken.seat,
            broken.number,
            bot_pb2.Action(decision=broken.number, json='{"type": "pass"}'),
            broken.listing,
        )


def test_json_bounds_are_enforced_before_decoding_and_ignore_brackets_in_strings() -> None:
    assert load_wire('{"type": "x", "note": "' + "[" * 40 + '"}') == {
        "type": "x",
        "note": "[" * 40,
    }
    assert load_wire("[" * MAX_WIRE_DEPTH + "]" * MAX_WIRE_DEPTH) is not None
    with pytest.raises(engines.InvalidAction, match="nests 17 levels"):
        load_wire("[" * (MAX_WIRE_DEPTH + 1) + "]" * (MAX_WIRE_DEPTH + 1))
    with pytest.raises(engines.InvalidAction, match="at most 1000 are read"):
        load_wire("[" + "[]," * 1000 + "[]]")
    with pytest.raises(engines.InvalidAction, match="characters"):
        load_wire('"' + "a" * MAX_WIRE_CHARS + '"')
    with pytest.raises(engines.InvalidAction, match="not valid JSON"):
        load_wire('{"type": NaN')
