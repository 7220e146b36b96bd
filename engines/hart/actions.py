"""The actions of Hart an der Grenze as small value types (their JSON forms live in `wire`)."""

from __future__ import annotations

from dataclasses import dataclass

from engines.hart.data import Good
from engines.hart.state import Bag


@dataclass(frozen=True, slots=True)
class Pack:
    """A trader puts these hand cards (1-5) in the suitcase."""

    goods: Bag


@dataclass(frozen=True, slots=True)
class Declare:
    """A trader announces `count` cards of the legal good `good`; it may be a lie."""

    count: int
    good: Good


@dataclass(frozen=True, slots=True)
class Inspect:
    """The sheriff orders "Open up!" to `seat` (the normal inspection or the extra control)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Seize:
    """The sheriff spends the seizure token on `seat`'s suitcase."""

    seat: int


@dataclass(frozen=True, slots=True)
class Pass:
    """The sheriff inspects nobody, or does not use a token."""


@dataclass(frozen=True, slots=True)
class Offer:
    """A bribe proposal: the inspected trader's offer, or either side's counter-offer."""

    amount: int


@dataclass(frozen=True, slots=True)
class Accept:
    """Accept the other side's last offer: the money moves and the suitcase stays shut."""


@dataclass(frozen=True, slots=True)
class Open:
    """End the negotiation without a deal: the suitcase is opened."""


@dataclass(frozen=True, slots=True)
class Keep:
    """At a round's end, keep these cards (0-3) from behind the suitcase for the end sale."""

    goods: Bag


@dataclass(frozen=True, slots=True)
class Appoint:
    """The poorest player names the first sheriff of the next round."""

    seat: int


Action = Pack | Declare | Inspect | Seize | Pass | Offer | Accept | Open | Keep | Appoint
"""Every action of the game."""

ACTION_TYPES: dict[type, str] = {
    Pack: "pack",
    Declare: "declare",
    Inspect: "inspect",
    Seize: "seize",
    Pass: "pass",
    Offer: "offer",
    Accept: "accept",
    Open: "open",
    Keep: "keep",
    Appoint: "appoint",
}
"""The wire `type` of each action class."""
