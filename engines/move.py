"""`Move`: one decision as the match driver applied it, the value `MatchDriver.advance` returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic

from engines.api import A, Decision, Event, Json, S, Seat


@dataclass(frozen=True, slots=True)
class Move(Generic[S, A]):
    """One applied decision: the state before it, the joint action, the result and its events."""

    before: S
    decision: Decision
    joint: Mapping[Seat, A]
    after: S
    events: tuple[Event, ...]
    wire: Mapping[Seat, Json]
    """The joint action in wire form, as the record stores it."""
