"""What the SDK makes of a decision request (a `Turn`) and of a bot's choice (an `Action`)."""

from __future__ import annotations

import json
from typing import Any

try:  # optional: the SDK distribution depends on grpcio and protobuf alone
    import orjson
except ImportError:  # pragma: no cover - the full install has it
    orjson = None  # type: ignore[assignment]

from arena.sdk import openspiel_view
from arena.sdk.bots.base import Turn
from arena.v1 import bot_pb2
from engines import Json


def _loads(text: str) -> Any:
    """`json.loads`, through orjson (several times faster on a view) when it can. orjson refuses
    NaN and malformed text, which json then reads or rejects with its own error; it reads an
    integer beyond 64 bits as a float, but the arena sends none (views, actions and templates
    are the engines' small integers). Without orjson installed, json alone."""
    if orjson is None:
        return json.loads(text)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def turn_of(request: bot_pb2.DecisionRequest, game: str, seats: int) -> Turn:
    """The `Turn` a strategy sees for a decision request (an OpenSpiel game's from its typed
    view when the request has no JSON form)."""
    legal = tuple(_loads(text) for text in request.legal_json) if request.legal_json else None
    if not request.view_json and request.view.HasField("openspiel"):
        typed = request.view.openspiel
        return Turn(
            game=game,
            seat=request.seat,
            seats=seats,
            decision=request.decision,
            label=request.label,
            view=openspiel_view.view_json(typed),
            legal=tuple(typed.legal_labels),
            space={"kind": "listed"},
            match_id=request.match_id,
        )
    space: Any = {"kind": "listed"}
    if legal is None:
        space = {
            "kind": "mixed",
            "actions": [_loads(text) for text in request.space.actions_json],
            "ranges": [
                {
                    "template": _loads(r.template_json),
                    "field": r.field,
                    "min": r.min,
                    "max": r.max,
                }
                for r in request.space.ranges
            ],
        }
    return Turn(
        game=game,
        seat=request.seat,
        seats=seats,
        decision=request.decision,
        label=request.label,
        view=_loads(request.view_json),
        legal=legal,
        space=space,
        match_id=request.match_id,
    )


def action_for(request: bot_pb2.DecisionRequest, turn: Turn, choice: Json) -> bot_pb2.Action:
    """The Action message for a chosen wire action: an index when listed, else JSON."""
    action = bot_pb2.Action(match_id=request.match_id, decision=request.decision, seat=request.seat)
    if turn.legal is not None and choice in turn.legal:
        action.index = turn.legal.index(choice)
    else:
        action.json = json.dumps(choice)
    return action
