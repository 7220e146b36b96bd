"""Helpers that build exact Double Crossing positions and play them with scripted dice."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from engines.api import Event
from engines.crossing.actions import Action, Pass, Roll
from engines.crossing.data import BOARDS, CARS, CREWS, Board, load_board
from engines.crossing.rules import CrossingRules
from engines.crossing.state import CrewMode, CrossingState, Label, Op, Task
from engines.crossing.turns import run
from engines.crossing.work import Work
from engines.driver import MatchDriver
from engines.rng import HashRng, ScriptedRng

RULES = CrossingRules()
BOARD = BOARDS["board.json"]

_STEPPED: dict[int, tuple[CrossingState, tuple[Event, ...]]] = {}
"""The events of each state `act` made, by its id (the state is kept, so an id stays unique)."""


def space(name: str) -> int:
    """The index of the space called `name` ("O12", "CENTRAL", "I7")."""
    return next(s.index for s in BOARD.spaces if s.name == name)


def begin(seats: int = 4, seed: int = 0, **options: Any) -> CrossingState:
    """A freshly set-up match."""
    return MatchDriver(RULES, seats, options, seed).state  # type: ignore[no-any-return]


def setup_events(seats: int = 4, seed: int = 0, **options: Any) -> tuple[Event, ...]:
    """The events of the setup of the match `begin` builds with the same arguments."""
    options = RULES.resolve_options(options)
    return RULES.start(seats, options, HashRng.for_setup(seed)).events


def edit(
    state: CrossingState,
    seat: int,
    *,
    position: str | None = None,
    money: int | None = None,
    cars: Mapping[str, int] | None = None,
    hand: Mapping[str, int] | None = None,
    contracts: list[str] | None = None,
) -> CrossingState:
    """Change one seat's locomotive, money, rack, hand or contracts (taken off the stacks)."""
    board = state.board
    player = state.players[seat]
    changes: dict[str, Any] = {}
    if position is not None:
        changes["position"] = space(position)
    if money is not None:
        changes["money"] = money
    if cars is not None:
        changes["rack"] = tuple(cars.get(c.value, 0) for c in CARS)
    if hand is not None:
        changes["hand"] = tuple(hand.get(c.value, 0) for c in CREWS)
    stacks = state.stacks
    if contracts is not None:
        indices = tuple(board.contract_ids.index(cid) for cid in contracts)
        changes["contracts"] = indices
        stacks = tuple(tuple(i for i in stack if i not in indices) for stack in stacks)
    players = list(state.players)
    players[seat] = replace(player, **changes)
    return replace(state, players=tuple(players), stacks=stacks)


def turn_of(state: CrossingState, active: int, chain: int = 0) -> CrossingState:
    """The same position, at the start of `active`'s turn (its declare decision)."""
    fresh = replace(state, tasks=(Task(Op.BEGIN_TURN, active, amount=chain),), prompt=None)
    work = Work(fresh, ScriptedRng())
    run(work)
    return work.freeze(state.number)


def act(
    state: CrossingState,
    action: Action | Mapping[int, Action],
    dice: tuple[int, ...] = (),
) -> CrossingState:
    """Answer the current decision with exactly these die faces; every face must be used.

    A single action answers for the seat the decision is about; at a declare decision the
    other seats pass unless the mapping says otherwise.
    """
    prompt = state.prompt
    assert prompt is not None, "the match is over"
    joint: dict[int, Action] = {}
    if isinstance(action, Mapping):
        joint.update(action)
    else:
        joint[prompt.seat if prompt.seat in prompt.seats else prompt.seats[0]] = action
    for seat in prompt.seats:
        joint.setdefault(seat, Pass())
    rng = ScriptedRng([face - 1 for face in dice])
    decision = RULES.decision(state)
    assert decision is not None and set(joint) == decision.seats
    for seat, answer in joint.items():
        RULES.check_answer(state, seat, decision.number, answer)
    after = RULES.step(state, decision, joint, rng)
    assert rng.used == len(dice), f"only {rng.used} of the {len(dice)} scripted dice were used"
    _STEPPED[id(after.state)] = (after.state, after.events)
    return after.state


def roll(crew: str = "none", villain: int | None = None, engineer: bool = False) -> Roll:
    """A declare action that rolls to move."""
    return Roll(CrewMode(crew), villain, engineer)


def step_events(state: CrossingState) -> tuple[Event, ...]:
    """The events of the step `act` made `state` with (all audiences)."""
    made, found = _STEPPED[id(state)]
    assert made is state, "events are known only for states that `act` returned"
    return found


def events(state: CrossingState, kind: str | None = None) -> list[dict[str, Any]]:
    """The events of the step `act` made `state` with (all audiences), optionally of one kind."""
    last = [e.to_json() for e in step_events(state)]
    assert all(e["number"] == state.number - 1 for e in last)
    return [e for e in last if kind is None or e["kind"] == kind]


def label(state: CrossingState) -> Label | None:
    """The label of the waiting decision."""
    return None if state.prompt is None else state.prompt.label


def cars(state: CrossingState, seat: int) -> dict[str, int]:
    """A seat's rack by car name (non-zero only)."""
    return {c.value: n for c, n in zip(CARS, state.players[seat].rack, strict=True) if n}


def hand(state: CrossingState, seat: int) -> dict[str, int]:
    """A seat's hand by card name (non-zero only)."""
    return {c.value: n for c, n in zip(CREWS, state.players[seat].hand, strict=True) if n}


def contract_ids(state: CrossingState, seat: int) -> list[str]:
    """A seat's contracts by id."""
    return [state.board.contract_ids[i] for i in state.players[seat].contracts]


def board_variant(name: str, change: Callable[[dict[str, Any]], None]) -> Board:
    """A copy of the default board file, changed by `change` and validated like any other."""
    raw = json.loads(json.dumps(_default_raw()))
    change(raw)
    return load_board(json.dumps(raw), name)


def _default_raw() -> dict[str, Any]:
    from importlib import resources

    text = resources.files("engines.crossing").joinpath("board.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def default_raw() -> dict[str, Any]:
    """The default board file as JSON."""
    return _default_raw()


def on_board(state: CrossingState, board: Board) -> CrossingState:
    """The same state played on another (already registered) board."""
    return replace(state, settings=replace(state.settings, board=board.name))
