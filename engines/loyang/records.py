"""Cheaper builders of the records a step replaces: action turns and fields.

Each builds the same object as calling the class does (`engines.frozen`: the slots' setters
instead of `type.__call__` and the frozen dataclass `__init__`), at about half the cost; they are
compiled with the rules, which call them several times a step.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from engines.frozen import setters
from engines.loyang.cards import Crop
from engines.loyang.state import Field, Stage, Turn


def evolve_turn(turn: Turn, **changes: Any) -> Turn:
    """`dataclasses.replace(turn, **changes)`, spelled out: a turn is replaced about once a
    step, and `replace`'s walk over the fields took twice as long as this."""
    if not changes.keys() <= _TURN_FIELDS:
        raise TypeError(f"Turn has no field(s) {sorted(changes.keys() - _TURN_FIELDS)}")
    get = changes.get
    return _shared_turn(
        get("seat", turn.seat),
        get("stage", turn.stage),
        get("steps", turn.steps),
        get("pair_bought", turn.pair_bought),
        get("drawn", turn.drawn),
        get("discount", turn.discount),
        get("bonus_regular", turn.bonus_regular),
        get("bonus_casual", turn.bonus_casual),
    )


@functools.lru_cache(maxsize=4096, typed=True)
def _shared_turn(
    seat: int,
    stage: Stage,
    steps: int,
    pair_bought: bool,
    drawn: tuple[str, ...],
    discount: int,
    bonus_regular: int,
    bonus_casual: int,
) -> Turn:
    """`Turn(...)`: turns are immutable values that recur (a seat's step count, mostly), so one
    record per distinct set of values is shared (`typed`: a flag of 1 is not taken for True);
    built through its slots' setters (`engines.frozen`), about half the cost of the class."""
    built = _new(Turn)
    s_seat, s_stage, s_steps, s_pair, s_drawn, s_discount, s_regular, s_casual = _TURN_SETTERS
    s_seat(built, seat)
    s_stage(built, stage)
    s_steps(built, steps)
    s_pair(built, pair_bought)
    s_drawn(built, drawn)
    s_discount(built, discount)
    s_regular(built, bonus_regular)
    s_casual(built, bonus_casual)
    return built


_TURN_NAMES = (
    "seat",
    "stage",
    "steps",
    "pair_bought",
    "drawn",
    "discount",
    "bonus_regular",
    "bonus_casual",
)
_TURN_FIELDS: Final = frozenset(_TURN_NAMES)
_TURN_SETTERS: Final = setters(Turn, *_TURN_NAMES)
_FIELD_SETTERS: Final = setters(Field, "id", "size", "allowed", "crop", "count", "common", "under")
_new: Final = object.__new__


def field_with(f: Field, crop: Crop | None, count: int) -> Field:
    """`dataclasses.replace(f, crop=crop, count=count)`, spelled out (sowing, harvesting)."""
    built = _new(Field)
    s_id, s_size, s_allowed, s_crop, s_count, s_common, s_under = _FIELD_SETTERS
    s_id(built, f.id)
    s_size(built, f.size)
    s_allowed(built, f.allowed)
    s_crop(built, crop)
    s_count(built, count)
    s_common(built, f.common)
    s_under(built, f.under)
    return built
