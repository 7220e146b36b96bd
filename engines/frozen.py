"""Cheaper construction of the frozen, slotted dataclasses that every step builds.

A frozen dataclass's `__init__` sets each field through `object.__setattr__`, looked up anew per
field; a step freezes a state of 14-23 fields and some players, so that was a visible share of a
decision (a 14-field state: ~0.95 µs; ~0.53 µs through its slots' own setters). A hot
constructor instead takes `object.__new__(cls)` and calls the setters that `setters(cls, ...)`
returns, one per field. The object is exactly what `cls(...)` builds (same class, equality,
hash, immutability); only classes without `__post_init__` qualify, and `setters` insists on
every field, in order, so that a field added later fails at import instead of staying unset.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from operator import attrgetter
from typing import Any, Final, TypeVar

from engines.api import Decision, Event, Json, ListedSpace, Seat, Transition

T = TypeVar("T")

Setter = Callable[[Any, Any], None]


def setters(cls: type, *names: str) -> tuple[Setter, ...]:
    """The slot setters of `cls`'s fields; `names` must be all of them, in declaration order."""
    fields = tuple(f.name for f in dataclasses.fields(cls))
    if names != fields or hasattr(cls, "__post_init__") or "__slots__" not in vars(cls):
        raise TypeError(f"{cls.__name__}: expected the slotted fields {fields}, got {names}")
    return tuple(vars(cls)[name].__set__ for name in names)


class Enum(enum.Enum):
    """An `enum.Enum` hashed by identity and with C-level `value` and `name`, for the enums
    a step looks up in dicts and sets and writes into events.

    `Enum.__hash__` is a Python method (`hash(self._name_)`) run at every lookup, and a
    member is equal only to itself, so `object.__hash__` (C) finds the same entries. Iteration
    order of a set of members was never stable (the names' hashes vary per process), so nothing
    can depend on it.
    """

    __hash__ = object.__hash__


# `Enum.value` and `.name` are Python-level descriptors (`enum.property`), read at every event and
# wire form; C-level ones read the same member attributes. Set after the class, where type
# checkers (which keep `enum.Enum`'s types) do not look and mypyc compiles this module.
setattr(Enum, "value", property(attrgetter("_value_"), doc="The member's value."))  # noqa: B010
setattr(Enum, "name", property(attrgetter("_name_"), doc="The member's name."))  # noqa: B010


# The module's tables are `Final`: compiled, they are C statics, not looked up by name per call.
_new: Final = object.__new__
_DECISION_SETTERS: Final = setters(Decision, "number", "seats", "label")
_TRANSITION_SETTERS: Final = setters(Transition, "state", "events")


def new_decision(number: int, seats: frozenset[Seat], label: str) -> Decision:
    """`Decision(number, seats, label)`, built through its slots' setters: every game builds
    one per decision, and calling the class (`type.__call__`, then the dataclass `__init__`
    with an `object.__setattr__` per field) cost about twice as much."""
    built = _new(Decision)
    _set_number, _set_seats, _set_label = _DECISION_SETTERS
    _set_number(built, number)
    _set_seats(built, seats)
    _set_label(built, label)
    return built


def new_transition(state: T, events: tuple[Event, ...]) -> Transition[T]:
    """`Transition(state, events)`, built through its slots' setters (every step returns one)."""
    built: Transition[T] = _new(Transition)
    _set_state, _set_events = _TRANSITION_SETTERS
    _set_state(built, state)
    _set_events(built, events)
    return built


_LISTED_FIELDS = ("actions", "default_index", "_members", "_scanned")
if tuple(f.name for f in dataclasses.fields(ListedSpace)) != _LISTED_FIELDS:  # pragma: no cover
    raise TypeError("new_listed must set every field of ListedSpace, as its __post_init__ does")
_LISTED_SETTERS: Final = tuple(vars(ListedSpace)[name].__set__ for name in _LISTED_FIELDS)
L = TypeVar("L", bound=ListedSpace[Any])


def new_listed(cls: type[L], actions: tuple[Any, ...], default_index: int = 0) -> L:
    """`cls(actions, default_index)` for `ListedSpace` or a subclass that adds no fields: the
    same check and the same space, through the slots' setters (a fresh space per decision)."""
    if not actions:
        raise ValueError("a decision must offer at least one legal action")
    built = _new(cls)
    set_actions, set_default, set_members, set_scanned = _LISTED_SETTERS
    set_actions(built, actions)
    set_default(built, default_index)
    set_members(built, None)
    set_scanned(built, False)
    return built


_ONE_SEAT: Final = tuple(frozenset((seat,)) for seat in range(16))


def one_seat(seat: Seat) -> frozenset[Seat]:
    """`frozenset({seat})`, shared: most decisions are one seat's."""
    return _ONE_SEAT[seat] if seat < 16 else frozenset((seat,))


EVENT_SETTERS: Final = setters(Event, "number", "kind", "data", "audience")
"""`Event`'s slot setters, for a game's `emit` that builds its events inline."""


def event(number: int, kind: str, audience: frozenset[Seat] | None, data: dict[str, Json]) -> Event:
    """`Event.make(number, kind, audience, **data)`, for a step's `emit`, which already holds the
    details as a dict: the same event, without packing the keywords again or `__init__`."""
    built = _new(Event)
    set_number, set_kind, set_data, set_audience = EVENT_SETTERS
    set_number(built, number)
    set_kind(built, kind)
    set_data(built, tuple(sorted(data.items())) if len(data) > 1 else tuple(data.items()))
    set_audience(built, audience)
    return built
