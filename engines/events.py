"""Events: what happened, and who may ever see it.

A state keeps an append-only log of events. Each seat's view shows the events it may see since it
last decided; the public view shows the public events of the last decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engines.api import Json, Seat


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, with its audience."""

    number: int
    """The decision that produced it; -1 for setup."""
    kind: str
    """What happened: "dealt", "opened", "bribe_paid", ..."""
    data: tuple[tuple[str, Json], ...]
    """The details, as sorted (key, value) pairs so that events stay hashable and immutable."""
    audience: frozenset[Seat] | None = None
    """The seats that may see it; None means everyone, spectators included."""

    @staticmethod
    def make(number: int, kind: str, audience: Iterable[Seat] | None = None, **data: Json) -> Event:
        """Build an event from keyword details."""
        return Event(
            number=number,
            kind=kind,
            data=tuple(sorted(data.items())),
            audience=None if audience is None else frozenset(audience),
        )

    def is_visible_to(self, viewer: Seat | None) -> bool:
        """Whether `viewer` (None = spectator) may see this event."""
        return self.audience is None or (viewer is not None and viewer in self.audience)

    def to_json(self) -> dict[str, Json]:
        """The wire form of the event (its audience is not part of it)."""
        return {"number": self.number, "kind": self.kind, **dict(self.data)}


def visible(log: Iterable[Event], viewer: Seat | None, since: int = -1) -> tuple[Event, ...]:
    """The events of `log` that `viewer` may see, produced at decision `since` or later."""
    return tuple(e for e in log if e.number >= since and e.is_visible_to(viewer))
