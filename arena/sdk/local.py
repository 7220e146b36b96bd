"""Play a match in process: engine plus strategies, no network. Used by `arena play` and tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engines
from arena.sdk.bots.base import Strategy, Turn
from engines import Decision, EngineError, Event, HashRng, Outcome, Record, Rules
from engines.api import ActionSpace, Json
from engines.driver import MatchDriver


def turn_for(driver: MatchDriver[Any, Any], seat: int) -> Turn:
    """The `Turn` a bot in deciding `seat` sees now: its view and the legal actions in wire form."""
    decision = driver.decision
    assert decision is not None, "no turn once the match is over"
    return make_turn(
        driver.rules, decision, seat, driver.seats, driver.view(seat), driver.space(seat)
    )


def make_turn(
    rules: Rules[Any, Any, Any],
    decision: Decision,
    seat: int,
    seats: int,
    view: dict[str, Json],
    space: ActionSpace[Any],
) -> Turn:
    """The `Turn` for `seat` from its wire view and its legal actions (the space's wire form)."""
    listing = space.listing()
    return Turn(
        game=rules.name,
        seat=seat,
        seats=seats,
        decision=decision.number,
        label=decision.label,
        view=view,
        legal=None if listing is None else tuple(rules.dump_action(a) for a in listing),
        space=space.describe() if listing is None else {"kind": "listed"},
    )


@dataclass
class LocalMatch:
    """The result of an in-process match."""

    record: Record
    final: Any
    outcome: Outcome
    bad_answers: list[tuple[int, int, str]] = field(default_factory=list)
    """(decision, seat, error) for answers that were replaced by the default action."""


def play_local(
    game: str,
    strategies: Sequence[Strategy],
    seed: int,
    options: Mapping[str, object] | None = None,
    on_step: Callable[[Any, Decision, Mapping[int, Any], Any, tuple[Event, ...]], None]
    | None = None,
) -> LocalMatch:
    """Play one match between `strategies` (one per seat) and return its record and outcome.

    `on_step(before, decision, joint, after, events)` is called after each decision is applied,
    with the events that decision produced.
    """
    rules = engines.get(game)
    driver: MatchDriver[Any, Any] = MatchDriver(rules, len(strategies), options, seed)
    bad: list[tuple[int, int, str]] = []
    for decision in driver.run():
        for seat in sorted(decision.seats):
            bot_rng = HashRng(seed, f"bot:{seat}:{decision.number}")
            try:
                answer = strategies[seat].decide(turn_for(driver, seat), bot_rng)
                driver.answer(seat, decision.number, rules.parse_action(seat, answer))
            except EngineError as exc:
                bad.append((decision.number, seat, str(exc)))
                driver.answer(seat, decision.number, driver.default(seat))
        move = driver.advance()
        if on_step is not None:
            on_step(move.before, move.decision, move.joint, move.after, move.events)
    outcome = driver.outcome()
    assert outcome is not None
    return LocalMatch(record=driver.record(), final=driver.state, outcome=outcome, bad_answers=bad)
