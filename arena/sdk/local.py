"""Play a match in process: engine plus strategies, no network. Used by `arena play` and tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engines
from arena.sdk.bots.base import Strategy, Turn
from engines import Decision, EngineError, HashRng, Outcome, Record, Rules
from engines.replay import advance, start


def turn_for(
    rules: Rules[Any, Any, Any], state: Any, decision: Decision, seat: int, seats: int
) -> Turn:
    """The `Turn` a bot in `seat` sees: its view and the legal actions in wire form."""
    space = rules.legal_actions(state, seat)
    listing = space.listing()
    return Turn(
        game=rules.name,
        seat=seat,
        seats=seats,
        decision=decision.number,
        label=decision.label,
        view=rules.dump_observation(rules.observe(state, seat)),
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
    on_step: Callable[[Any, Decision, Mapping[int, Any], Any], None] | None = None,
) -> LocalMatch:
    """Play one match between `strategies` (one per seat) and return its record and outcome."""
    rules = engines.get(game)
    seats = len(strategies)
    resolved = rules.resolve_options(options or {})
    state = start(rules, seats, resolved, seed)
    moves: list[dict[int, Any]] = []
    bad: list[tuple[int, int, str]] = []
    while (decision := rules.decision(state)) is not None:
        joint: dict[int, Any] = {}
        for seat in sorted(decision.seats):
            turn = turn_for(rules, state, decision, seat, seats)
            bot_rng = HashRng(seed, f"bot:{seat}:{decision.number}")
            try:
                action = rules.parse_action(seat, strategies[seat].decide(turn, bot_rng))
                rules.check_answer(state, seat, decision.number, action)
            except EngineError as exc:
                bad.append((decision.number, seat, str(exc)))
                action = rules.legal_actions(state, seat).default()
            joint[seat] = action
        after = advance(rules, state, decision, joint, seed)
        if on_step is not None:
            on_step(state, decision, joint, after)
        moves.append({seat: rules.dump_action(a) for seat, a in joint.items()})
        state = after
    outcome = rules.outcome(state)
    assert outcome is not None
    record = Record(rules.name, rules.version, resolved, seats, seed, tuple(moves))
    return LocalMatch(record=record, final=state, outcome=outcome, bad_answers=bad)
