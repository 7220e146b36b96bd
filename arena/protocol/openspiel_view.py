"""The typed `OpenSpielView` of an OpenSpiel game's JSON view, as the referee sends it.

The JSON view (engines/openspiel/adapter.py `view`) is a flat object whose keys are the message's
field names; a key it leaves out stays unset. The legal actions' ids and labels are not in the
JSON view (the labels are `legal_json`): the referee adds them from the seat's action space.
`arena.sdk.openspiel_view.view_json` reads the message back into the JSON form.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.protocol.wire import WireError
from arena.v1 import common_pb2, openspiel_pb2
from engines import Json

FIELDS = frozenset(openspiel_pb2.OpenSpielView.DESCRIPTOR.fields_by_name) - {
    "legal_ids",
    "legal_labels",
    "has_history",
}
"""The keys of the JSON view that the message holds."""


def is_openspiel(game: str) -> bool:
    """Whether `game` is one of OpenSpiel's ("openspiel/<name>")."""
    return game.startswith("openspiel/")


def typed_view(
    view: Json, labels: Sequence[str] = (), ids: Sequence[int] = ()
) -> common_pb2.GameView:
    """The `GameView` holding the `OpenSpielView` of a JSON view and the viewer's legal actions;
    a key the message does not hold, or a value of the wrong type, raises `WireError`."""
    if not isinstance(view, dict):
        raise WireError(f"an OpenSpiel view is an object, not {type(view).__name__}")
    unknown = sorted(set(view) - FIELDS)
    if unknown:
        raise WireError(f"an OpenSpiel view has no field {unknown[0]!r}")
    fields: dict[str, Any] = view  # checked by the message's constructor
    try:
        typed = openspiel_pb2.OpenSpielView(
            **fields,
            legal_labels=list(labels),
            legal_ids=list(ids),
            has_history="history" in view,
        )
    except (TypeError, ValueError) as exc:
        raise WireError(f"an OpenSpiel view does not fit its message: {exc}") from None
    return common_pb2.GameView(openspiel=typed)
