"""`engines.frozen`: objects built through slot setters are the ones the constructors build."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engines.api import Event, Json
from engines.frozen import event, setters
from engines.move import Move


def test_event_matches_event_make() -> None:
    details: list[dict[str, Json]] = [{}, {"seat": 1}, {"b": [1, 2], "a": "x", "c": None}]
    for data in details:
        for audience in (None, (2, 0)):
            built = event(3, "rolled", None if audience is None else frozenset(audience), data)
            made = Event.make(3, "rolled", audience, **data)
            assert built == made
            assert built.data == made.data and built.audience == made.audience
            assert built.to_json() == made.to_json()
    assert hash(event(0, "k", None, {"a": 1})) == hash(Event.make(0, "k", a=1))


def test_setters_build_an_equal_frozen_object() -> None:
    values: tuple[Any, ...] = ("before", "decision", {0: "a"}, "after", (), {0: "wire"})
    move = object.__new__(Move)
    for set_field, value in zip(
        setters(Move, "before", "decision", "joint", "after", "events", "wire"), values, strict=True
    ):
        set_field(move, value)
    assert move == Move(*values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        move.before = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    "names",
    [
        ("number", "kind", "data"),  # one missing
        ("kind", "number", "data", "audience"),  # out of order
        ("number", "kind", "data", "audience", "extra"),  # one too many
    ],
)
def test_setters_insist_on_every_field_in_order(names: tuple[str, ...]) -> None:
    with pytest.raises(TypeError):
        setters(Event, *names)
