"""The actions of Loyang: one small frozen dataclass per kind of step (wire forms in `wire`)."""

from __future__ import annotations

from dataclasses import dataclass

from engines.loyang.cards import Crop
from engines.loyang.state import Bonus


@dataclass(frozen=True, slots=True)
class SetupSow:
    """Setup: buy `crop` from your shop and sow your home field with it."""

    crop: Crop


@dataclass(frozen=True, slots=True)
class Play:
    """Card phase, option A: play a hand card face up into the courtyard."""

    card: str


@dataclass(frozen=True, slots=True)
class Reveal:
    """Card phase, 2-player rule: reveal the deck's top card into the courtyard instead."""


@dataclass(frozen=True, slots=True)
class Take:
    """Card phase, option B: keep one courtyard and one hand card; the rest of the hand goes out."""

    courtyard: str
    hand: str


@dataclass(frozen=True, slots=True)
class GridBuy:
    """Solo card phase: buy the card at (row, col) of the grid, row 0 on top."""

    row: int
    col: int


@dataclass(frozen=True, slots=True)
class PickOpponent:
    """4-player paired variant: the first start player picks their opponent."""

    seat: int


@dataclass(frozen=True, slots=True)
class EndTurn:
    """End my action steps (then regular customers are checked, crops stored, the Path paid)."""


@dataclass(frozen=True, slots=True)
class Sow:
    """Sow `crop` from the cart on the empty field `field`."""

    field: str
    crop: Crop


@dataclass(frozen=True, slots=True)
class Buy:
    """Buy 1 `crop` from your shop onto the cart."""

    crop: Crop


@dataclass(frozen=True, slots=True)
class Sell:
    """Sell 1 `crop` from the cart to your shop."""

    crop: Crop


@dataclass(frozen=True, slots=True)
class Trade:
    """Give the crops `give` (sorted) to the supply for 1 `crop` from your stall `stall`."""

    stall: str
    crop: Crop
    give: tuple[Crop, ...]


@dataclass(frozen=True, slots=True)
class UseHelper:
    """Use helper `card`; the other fields are the parameters its effect needs, else None/()."""

    card: str
    target: int | None = None
    """Lantern helpers: the other seat (-1 = the solo opponent)."""
    stall: str | None = None
    crop: Crop | None = None
    give: tuple[Crop, ...] = ()
    customer: str | None = None
    bonus: Bonus | None = None


@dataclass(frozen=True, slots=True)
class Dismiss:
    """Discard helper `card` unused."""

    card: str


@dataclass(frozen=True, slots=True)
class Deliver:
    """Deliver the 2 crops of regular customer `customer` to its next row."""

    customer: str


@dataclass(frozen=True, slots=True)
class Serve:
    """Serve casual customer `customer` with its 3 crops."""

    customer: str


@dataclass(frozen=True, slots=True)
class BuyPair:
    """Buy a card pair (once per round): draw 2 action cards face up."""


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep these drawn cards, front card first (empty: keep none)."""

    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Loan:
    """Take a loan: 5 coins now, 1 step back at the end."""


@dataclass(frozen=True, slots=True)
class Upgrade:
    """Upgrade the storehouse from 1 to 4 spaces."""


@dataclass(frozen=True, slots=True)
class Store:
    """End of turn: move 1 `crop` from the cart into the storehouse."""

    crop: Crop


@dataclass(frozen=True, slots=True)
class FinishStoring:
    """End of turn: done storing; the crops left on the cart are sold to the shop."""


@dataclass(frozen=True, slots=True)
class Advance:
    """End of turn: pay for `steps` steps on the Path of Prosperity (then scoring is over)."""

    steps: int


@dataclass(frozen=True, slots=True)
class FinishScoring:
    """End of turn: do not move on the Path this round."""


Action = (
    SetupSow
    | Play
    | Reveal
    | Take
    | GridBuy
    | PickOpponent
    | EndTurn
    | Sow
    | Buy
    | Sell
    | Trade
    | UseHelper
    | Dismiss
    | Deliver
    | Serve
    | BuyPair
    | Keep
    | Loan
    | Upgrade
    | Store
    | FinishStoring
    | Advance
    | FinishScoring
)
