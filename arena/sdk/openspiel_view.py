"""What a bot makes of a typed `OpenSpielView`: the same object as the JSON view (`view_json`).

A bot that asks for the typed form only (Hello `form: PAYLOAD_FORM_TYPED`) still gets `Turn.view`
in the JSON shape: `view_json` rebuilds it from the message, and `legal` reads the legal actions'
OpenSpiel ids and labels, which only the typed view carries.
"""

from __future__ import annotations

from typing import Any

from arena.v1 import openspiel_pb2

_LISTS = ("tensor", "history", "returns")


def view_json(view: openspiel_pb2.OpenSpielView) -> dict[str, Any]:
    """The JSON view the typed `view` was made from: unset fields and empty lists left out."""
    out: dict[str, Any] = {}
    if view.HasField("seat"):
        out["seat"] = view.seat
    if view.HasField("information_state"):
        out["information_state"] = view.information_state
    if view.HasField("observation"):
        out["observation"] = view.observation
    if view.HasField("final"):
        out["final"] = view.final
    if view.game:
        out["game"] = view.game
    for name in _LISTS:
        values = list(getattr(view, name))
        if values or (name == "history" and view.has_history):
            out[name] = values
    return out


def legal(view: openspiel_pb2.OpenSpielView) -> dict[str, int]:
    """The viewer's legal actions: OpenSpiel's action string to its id, in the listed order."""
    return dict(zip(view.legal_labels, view.legal_ids, strict=True))
