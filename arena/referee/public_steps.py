"""What spectators see after each decision of a live match, built only when someone looks."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.referee import spectate
from engines import Event, Rules


@dataclass
class PublicStep:
    """What spectators see after a decision; the view is computed when first read."""

    decision: int
    label: str
    source: Callable[[], Any]
    """Builds the public view; called once, on first read, so nobody watching costs nothing."""
    at: float = field(default_factory=time.monotonic)
    _view: Any = field(default=None, init=False, repr=False)
    _built: bool = field(default=False, init=False, repr=False)

    @property
    def view(self) -> Any:
        """The public view (JSON form) after this decision."""
        if not self._built:
            self._view, self._built = self.source(), True
            self.source = _built
        return self._view


def public_view_of(
    rules: Rules[Any, Any, Any], state: Any, events: Iterable[Event] = ()
) -> Callable[[], Any]:
    """A builder of the public view of `state` with the `events` of the step that made it
    (states and events are immutable, so it can wait)."""
    return lambda: spectate.public_view(rules, state, events)


def _built() -> None:
    """Stands in for a step's source once its view is built, so the state can be freed."""
