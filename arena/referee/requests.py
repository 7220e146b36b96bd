"""Build the bot-protocol messages of a match from what the match driver gives."""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from google.protobuf.struct_pb2 import Struct

from arena.protocol import openspiel_view, wire
from arena.referee import encoding
from arena.referee.clock import Clock, to_duration
from arena.v1 import bot_pb2, common_pb2
from engines import ActionSpace, Decision, Json, Rules

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
    view: Json,
    decision: Decision,
    seat: int,
    time_left: timedelta,
    bank_left: timedelta,
    *,
    space: ActionSpace[Any],
    form: int = bot_pb2.PAYLOAD_FORM_UNSPECIFIED,
) -> tuple[bot_pb2.DecisionRequest, list[Any]]:
    """The request a seat receives, and the listed legal actions its indexes refer to.

    Built once, straight from the engine's values through the game's compiled `Encoder`, in the
    forms the bot asked for in its Hello (`form`; unspecified = typed and JSON). `space` is the
    seat's legal actions when the caller has them already.
    """
    game = rules.name
    typed = form != bot_pb2.PAYLOAD_FORM_JSON
    texts = form != bot_pb2.PAYLOAD_FORM_TYPED
    enc = encoding.encoder(game)
    listing, texts_of, messages_of = _listed(enc, rules, space)
    request = bot_pb2.DecisionRequest(
        match_id=match_id,
        decision=decision.number,
        seat=seat,
        label=decision.label,
        view_json=encoding.compact(view) if texts else "",
        time_left=to_duration(time_left),
        bank_left=to_duration(bank_left),
        default_json=enc.action(space.default(), rules.dump_action)[0],
    )
    request.deadline.FromNanoseconds(time.time_ns() + int(time_left.total_seconds() * 1e9))
    if typed:
        try:
            request.view.CopyFrom(_typed_view(enc, view, space))
        except wire.WireError:
            log.exception("the %s view does not fit its proto; sending JSON only", game)
    if listing:
        if texts:
            request.legal_json.extend(texts_of)
        if typed:
            request.legal.extend(messages_of)
        return request, listing
    described = space.describe()
    assert isinstance(described, dict)
    description: dict[str, Any] = dict(described)
    for dumped in description.get("actions", []):
        if texts:
            request.space.actions_json.append(encoding.compact(dumped))
        if typed:
            request.space.actions.append(_typed(enc, dumped))
    for r in description.get("ranges", []):
        entry = request.space.ranges.add(field=r["field"], min=r["min"], max=r["max"])
        if texts:
            entry.template_json = encoding.compact(r["template"])
        if typed:
            try:
                entry.template.CopyFrom(enc.action_message(r["template"]))
            except wire.WireError:
                log.exception("a %s action does not fit its proto", game)
    return request, listing


def _typed_view(enc: encoding.Encoder, view: Json, space: ActionSpace[Any]) -> common_pb2.GameView:
    """The typed view: the game's own message, or the `OpenSpielView` of any OpenSpiel game
    (with the legal actions' labels and OpenSpiel ids, which its space holds)."""
    if not openspiel_view.is_openspiel(enc.game):
        return enc.view(view)
    labels = getattr(space, "actions", ())
    return openspiel_view.typed_view(view, labels, getattr(space, "ids", ()))


def refresh_deadline(request: bot_pb2.DecisionRequest, time_left: timedelta) -> None:
    """Reset a request's deadline and time left (when it is sent again after a reconnect)."""
    left = max(time_left, timedelta(0))
    request.deadline.FromNanoseconds(time.time_ns() + int(left.total_seconds() * 1e9))
    request.time_left.CopyFrom(to_duration(left))


LISTING_CACHE_LIMIT = 4096
"""Listed spaces kept encoded before the cache starts over (a bound, not a tuning knob)."""

_Listed = tuple[ActionSpace[Any], list[Any], list[str], list[common_pb2.GameAction]]
_LISTINGS: dict[int, _Listed] = {}


def _listed(
    enc: encoding.Encoder, rules: Rules[Any, Any, Any], space: ActionSpace[Any]
) -> tuple[list[Any], list[str], list[common_pb2.GameAction]]:
    """The space's listed actions (empty if it is described), their JSON texts and messages.

    Engines hand out the same space object again for the same situation (Hart and Crossing
    reuse one for most decisions), and a space is immutable: its encoded listing is kept by the
    object's identity, holding the object so that the identity stays its own. The lists are
    shared: callers read them.
    """
    found = _LISTINGS.get(id(space))
    if found is not None and found[0] is space:
        return found[1], found[2], found[3]
    listing = list(space.listing() or [])
    encoded = [_encoded(enc, rules, action) for action in listing]
    texts, messages = [text for text, _ in encoded], [message for _, message in encoded]
    if len(_LISTINGS) >= LISTING_CACHE_LIMIT:
        _LISTINGS.clear()
    _LISTINGS[id(space)] = (space, listing, texts, messages)
    return listing, texts, messages


def _encoded(
    enc: encoding.Encoder, rules: Rules[Any, Any, Any], action: Any
) -> tuple[str, common_pb2.GameAction]:
    """(JSON text, typed message) of a listed action; an empty message if it does not fit."""
    try:
        return enc.action(action, rules.dump_action)
    except wire.WireError:
        log.exception("a %s action does not fit its proto", rules.name)
        return encoding.compact(rules.dump_action(action)), common_pb2.GameAction()


def _typed(enc: encoding.Encoder, dumped: Any) -> common_pb2.GameAction:
    try:
        return enc.action_message(dumped)
    except wire.WireError:
        log.exception("a %s action does not fit its proto", enc.game)
        return common_pb2.GameAction()


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
