"""The Double Crossing action types (their JSON forms: `wire`)."""

from __future__ import annotations

from dataclasses import dataclass

from engines.crossing.components import Car, Crew
from engines.crossing.state import CrewMode


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline."""


@dataclass(frozen=True, slots=True)
class Accept:
    """Carry out an optional effect (TRAIN SHOP: roll the die)."""


@dataclass(frozen=True, slots=True)
class PlayStop:
    """Play a Stop card against the active seat."""


@dataclass(frozen=True, slots=True)
class Roll:
    """Roll to move, with the cards declared before the roll."""

    crew: CrewMode = CrewMode.NONE
    villain: int | None = None
    engineer: bool = False


@dataclass(frozen=True, slots=True)
class BuyCards:
    """Instead of rolling to move, buy crew cards (a Villain may still be played)."""

    villain: int | None = None


@dataclass(frozen=True, slots=True)
class Buy:
    """Buy this many crew cards."""

    count: int


@dataclass(frozen=True, slots=True)
class BuyCar:
    """Buy the car of this YARD."""


@dataclass(frozen=True, slots=True)
class PickCar:
    """A car type from the rack."""

    car: Car


@dataclass(frozen=True, slots=True)
class Discard:
    """A crew card type from the hand."""

    card: Crew


@dataclass(frozen=True, slots=True)
class PickSpace:
    """A space of the board."""

    space: int


@dataclass(frozen=True, slots=True)
class PickContract:
    """A contract, by id."""

    contract: str


@dataclass(frozen=True, slots=True)
class PickSeat:
    """A seat."""

    seat: int


Action = (
    Pass
    | PlayStop
    | Roll
    | BuyCards
    | Buy
    | BuyCar
    | PickCar
    | Discard
    | PickSpace
    | PickContract
    | PickSeat
    | Accept
)
"""Every action a Double Crossing bot may answer with."""
