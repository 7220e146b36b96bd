"""What spectators may see of a match: its public view, and when (the spectator delay).

The referee's live watchers, its stored-match watchers and the web pages all use these, so a
spectator sees the same thing, at the same delay, however they watch.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from engines.api import Event, Json


def public_view(rules: Any, state: Any, events: Iterable[Event] = ()) -> Json:
    """The public view of `state` in the game's JSON wire form (no seat's secrets).

    `events` are those of the step that made `state` (`Move.events`); their public ones go in
    the view's "events", as `MatchDriver.view(None)` shows them, for games that emit events.
    """
    view: Json = rules.dump_observation(rules.observe(state, None))
    if rules.emits_events and isinstance(view, dict):
        view["events"] = [e.to_json() for e in events if e.is_visible_to(None)]
    return view


def is_revealed(happened_at: datetime, delay: timedelta, now: datetime) -> bool:
    """Whether a step logged at `happened_at` may be shown at `now` behind `delay`."""
    return happened_at + delay <= now
