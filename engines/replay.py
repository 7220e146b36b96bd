"""Records of matches and their exact replay."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engines.api import Decision, Json, Rules, Seat
from engines.errors import EngineError, ReplayMismatch
from engines.rng import HashRng


@dataclass(frozen=True, slots=True)
class Record:
    """Everything needed to reproduce a match: what Postgres stores and golden files contain."""

    game: str
    rules_version: int
    options: Mapping[str, Json]
    seats: int
    seed: int
    moves: tuple[Mapping[Seat, Json], ...]
    """One joint action (in wire form) per decision, by decision number."""

    def to_json(self) -> dict[str, Json]:
        """The record as JSON (seat keys become strings)."""
        return {
            "game": self.game,
            "rules_version": self.rules_version,
            "options": dict(self.options),
            "seats": self.seats,
            "seed": self.seed,
            "moves": [{str(seat): a for seat, a in sorted(m.items())} for m in self.moves],
        }

    @staticmethod
    def from_json(obj: Any) -> Record:
        """Parse `to_json` output; a malformed record raises `ReplayMismatch`."""
        try:
            return Record(
                game=str(obj["game"]),
                rules_version=int(obj["rules_version"]),
                options=dict(obj["options"]),
                seats=int(obj["seats"]),
                seed=int(obj["seed"]),
                moves=tuple({int(s): a for s, a in m.items()} for m in obj["moves"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReplayMismatch(f"malformed record: {exc!r}") from None


def start(rules: Rules[Any, Any, Any], seats: int, options: Mapping[str, object], seed: int) -> Any:
    """The initial state of a match, with the setup stream of its seed."""
    rules.check_seats(seats)
    return rules.setup(seats, rules.resolve_options(options), HashRng.for_setup(seed))


def advance(
    rules: Rules[Any, Any, Any],
    state: Any,
    decision: Decision,
    joint: Mapping[Seat, Any],
    seed: int,
) -> Any:
    """Apply a joint action with the decision's own chance stream."""
    return rules.apply(state, joint, HashRng.for_decision(seed, decision.number))


@dataclass(frozen=True, slots=True)
class Step:
    """One replayed decision: the state before it, the decision, the joint action, the result."""

    before: Any
    decision: Decision
    joint: Mapping[Seat, Any]
    after: Any


def steps(rules: Rules[Any, Any, Any], record: Record) -> Iterator[Step]:
    """Replay `record` one decision at a time; any divergence raises `ReplayMismatch`."""
    if record.game != rules.name:
        raise ReplayMismatch(f"record is of {record.game!r}, not {rules.name!r}")
    if record.rules_version != rules.version:
        raise ReplayMismatch(
            f"record was made by {rules.name} rules v{record.rules_version}, "
            f"these are v{rules.version}"
        )
    try:
        state = start(rules, record.seats, record.options, record.seed)
    except EngineError as exc:
        raise ReplayMismatch(f"record does not set up: {exc}") from exc
    for index, wire_joint in enumerate(record.moves):
        decision = rules.decision(state)
        if decision is None:
            raise ReplayMismatch(f"move {index} recorded after the match ended")
        if decision.number != index:
            raise ReplayMismatch(f"move {index} meets decision {decision.number}")
        try:
            joint = {seat: rules.parse_action(seat, a) for seat, a in wire_joint.items()}
            after = advance(rules, state, decision, joint, record.seed)
        except EngineError as exc:
            raise ReplayMismatch(f"move {index} does not replay: {exc}") from exc
        yield Step(before=state, decision=decision, joint=joint, after=after)
        state = after


def replay(rules: Rules[Any, Any, Any], record: Record) -> Any:
    """Rebuild the final state of `record`; any divergence raises `ReplayMismatch`."""
    final = start(rules, record.seats, record.options, record.seed)
    for step in steps(rules, record):
        final = step.after
    return final
