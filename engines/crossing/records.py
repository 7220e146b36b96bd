"""Cheaper builders of the records a step makes several of: tasks, prompts and turn records.

Each builds the same object as calling the class does (`engines.frozen`: the slots' setters
instead of `type.__call__` and the frozen dataclass `__init__`), at about half the cost. Tasks,
prompts and fresh turn records are immutable values that recur (the same few operations per
seat), so `new_task`, `new_prompt` and `new_turn` hand out one shared record per distinct set of
arguments (`typed`: a flag of 1 is not taken for True).
"""

from __future__ import annotations

import functools
from typing import Any, Final

from engines.crossing.state import CrewMode, Label, Op, Prompt, Task, TurnState
from engines.frozen import setters


def evolve_turn(turn: TurnState, **changes: Any) -> TurnState:
    """`dataclasses.replace(turn, **changes)`, spelled out: the turn record is replaced about once a
    step, and `replace`'s walk over the fields took twice as long as this."""
    if not changes.keys() <= _TURN_FIELDS:
        raise TypeError(f"TurnState has no field(s) {sorted(changes.keys() - _TURN_FIELDS)}")
    get = changes.get
    return new_turn(  # the shared record of these values (see the module docstring)
        get("active", turn.active),
        get("chain", turn.chain),
        get("crew", turn.crew),
        get("engineer", turn.engineer),
        get("occupied", turn.occupied),
        get("roll_again", turn.roll_again),
        get("ends", turn.ends),
        get("no_engineer", turn.no_engineer),
        get("stops", turn.stops),
        get("lost", turn.lost),
    )


_TURN_NAMES = (
    *("active", "chain", "crew", "engineer", "occupied"),
    *("roll_again", "ends", "no_engineer", "stops", "lost"),
)
_TURN_FIELDS: Final = frozenset(_TURN_NAMES)
_TURN_SETTERS: Final = setters(TurnState, *_TURN_NAMES)
_TASK_SETTERS: Final = setters(Task, "op", "seat", "other", "amount", "own", "flag")
_PROMPT_NAMES = ("label", "seats", "seat", "own", "value", "space", "spaces", "passes")
_PROMPT_SETTERS: Final = setters(Prompt, *_PROMPT_NAMES)
_new: Final = object.__new__


def _build_turn(
    active: int,
    chain: int = 0,
    crew: CrewMode = CrewMode.NONE,
    engineer: bool = False,
    occupied: bool = False,
    roll_again: bool = False,
    ends: bool = False,
    no_engineer: bool = False,
    stops: int = 0,
    lost: bool = False,
) -> TurnState:
    """`TurnState(...)`, cheaper."""
    t = _new(TurnState)
    s_active, s_chain, s_crew, s_engineer, s_occupied, s_roll, s_ends, s_no, s_stops, s_lost = (
        _TURN_SETTERS
    )
    s_active(t, active)
    s_chain(t, chain)
    s_crew(t, crew)
    s_engineer(t, engineer)
    s_occupied(t, occupied)
    s_roll(t, roll_again)
    s_ends(t, ends)
    s_no(t, no_engineer)
    s_stops(t, stops)
    s_lost(t, lost)
    return t


def _build_task(
    op: Op, seat: int = -1, other: int = -1, amount: int = 0, own: bool = True, flag: bool = False
) -> Task:
    """`Task(...)`, cheaper."""
    t = _new(Task)
    s_op, s_seat, s_other, s_amount, s_own, s_flag = _TASK_SETTERS
    s_op(t, op)
    s_seat(t, seat)
    s_other(t, other)
    s_amount(t, amount)
    s_own(t, own)
    s_flag(t, flag)
    return t


def _build_prompt(
    label: Label,
    seats: tuple[int, ...],
    seat: int,
    own: bool = True,
    value: int = 0,
    space: int = -1,
    spaces: tuple[int, ...] = (),
    passes: tuple[int, ...] = (),
) -> Prompt:
    """`Prompt(...)`, cheaper."""
    p = _new(Prompt)
    s_label, s_seats, s_seat, s_own, s_value, s_space, s_spaces, s_passes = _PROMPT_SETTERS
    s_label(p, label)
    s_seats(p, seats)
    s_seat(p, seat)
    s_own(p, own)
    s_value(p, value)
    s_space(p, space)
    s_spaces(p, spaces)
    s_passes(p, passes)
    return p


new_turn = functools.lru_cache(maxsize=8192, typed=True)(_build_turn)
new_task = functools.lru_cache(maxsize=4096, typed=True)(_build_task)
new_prompt = functools.lru_cache(maxsize=4096, typed=True)(_build_prompt)
