"""Build the bot-protocol messages of a match from the engine's state."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from google.protobuf.struct_pb2 import Struct
from google.protobuf.timestamp_pb2 import Timestamp

from arena import wire
from arena.clock import Clock, to_duration
from arena.v1 import bot_pb2, common_pb2
from engines import Decision, Rules

log = logging.getLogger(__name__)

TERMINATIONS = {
    "completed": common_pb2.TERMINATION_COMPLETED,
    "turn_limit": common_pb2.TERMINATION_TURN_LIMIT,
    "forfeit": common_pb2.TERMINATION_FORFEIT,
    "aborted": common_pb2.TERMINATION_ABORTED,
}


def struct_of(value: dict[str, Any]) -> Struct:
    """A `google.protobuf.Struct` holding a JSON object."""
    out = Struct()
    out.update(value)
    return out


def match_start(
    match_id: int,
    rules: Rules[Any, Any, Any],
    seat: int,
    players: list[str],
    options: dict[str, Any],
    clock: Clock,
) -> bot_pb2.ArenaMessage:
    """The MatchStart a seat's bot receives."""
    return bot_pb2.ArenaMessage(
        match_start=bot_pb2.MatchStart(
            match_id=match_id,
            game=rules.name,
            rules_version=rules.version,
            seat=seat,
            seats=len(players),
            options=struct_of(options),
            clock=clock.to_proto(),
            players=players,
        )
    )


def decision_request(
    match_id: int,
    rules: Rules[Any, Any, Any],
    state: Any,
    decision: Decision,
    seat: int,
    time_left: timedelta,
    bank_left: timedelta,
) -> tuple[bot_pb2.DecisionRequest, list[Any]]:
    """The request a seat receives, and the listed legal actions its indexes refer to."""
    game = rules.name
    view = rules.dump_observation(rules.observe(state, seat))
    space = rules.legal_actions(state, seat)
    listing = list(space.listing() or [])
    deadline = Timestamp()
    deadline.FromNanoseconds(time.time_ns() + int(time_left.total_seconds() * 1e9))
    request = bot_pb2.DecisionRequest(
        match_id=match_id,
        decision=decision.number,
        seat=seat,
        label=decision.label,
        view_json=wire.compact(view),
        deadline=deadline,
        time_left=to_duration(time_left),
        bank_left=to_duration(bank_left),
        default_json=wire.compact(rules.dump_action(space.default())),
    )
    try:
        request.view.CopyFrom(wire.view_message(game, view))
    except wire.WireError:
        log.exception("the %s view does not fit its proto; sending JSON only", game)
    if listing:
        for action in listing:
            dumped = rules.dump_action(action)
            request.legal_json.append(wire.compact(dumped))
            _add_typed(request.legal, game, dumped)
    else:
        description = space.describe()
        assert isinstance(description, dict)
        for dumped in description.get("actions", []):
            request.space.actions_json.append(wire.compact(dumped))
            _add_typed(request.space.actions, game, dumped)
        for r in description.get("ranges", []):
            entry = request.space.ranges.add(
                field=r["field"],
                min=r["min"],
                max=r["max"],
                template_json=wire.compact(r["template"]),
            )
            try:
                entry.template.CopyFrom(wire.action_message(game, r["template"]))
            except wire.WireError:
                log.exception("a %s action does not fit its proto", game)
    return request, listing


def refresh_deadline(request: bot_pb2.DecisionRequest, time_left: timedelta) -> None:
    """Reset a request's deadline and time left (when it is sent again after a reconnect)."""
    left = max(time_left, timedelta(0))
    request.deadline.FromNanoseconds(time.time_ns() + int(left.total_seconds() * 1e9))
    request.time_left.CopyFrom(to_duration(left))


def _add_typed(target: Any, game: str, dumped: Any) -> None:
    try:
        target.append(wire.action_message(game, dumped))
    except wire.WireError:
        log.exception("a %s action does not fit its proto", game)
        target.add()


def problem(
    match_id: int,
    decision: int,
    kind: int,
    message: str,
    *,
    strike: bool = False,
    strikes: int = 0,
    max_strikes: int = 0,
) -> bot_pb2.ArenaMessage:
    """An error or strike message."""
    return bot_pb2.ArenaMessage(
        problem=bot_pb2.Problem(
            match_id=match_id,
            decision=decision,
            kind=kind,  # type: ignore[arg-type]
            message=message,
            strike=strike,
            strikes=strikes,
            max_strikes=max_strikes,
        )
    )
