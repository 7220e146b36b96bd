"""The closed sets and static card/board definitions of At the Gates of Loyang."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engines.frozen import Enum

Counts = tuple[int, ...]
"""Crop counts indexed by `Crop` (six entries)."""

NO_CROPS: Counts = (0, 0, 0, 0, 0, 0)


class Crop(enum.IntEnum):
    """The six crops; the value indexes `Counts`."""

    WHEAT = 0
    PUMPKIN = 1
    TURNIP = 2
    CABBAGE = 3
    BEAN = 4
    LEEK = 5

    @property
    def wire(self) -> str:
        """The wire name, e.g. "wheat"."""
        return CROP_NAMES[self]  # by position: the value is the index (no hashing)

    @staticmethod
    def parse(name: object) -> Crop | None:
        """The crop of a wire name, or None."""
        return _BY_NAME.get(name) if isinstance(name, str) else None


_WIRE = {crop: crop.name.lower() for crop in Crop}
_BY_NAME = {name: crop for crop, name in _WIRE.items()}
CROP_NAMES = tuple(_WIRE[c] for c in Crop)
CROPS: tuple[Crop, ...] = tuple(Crop)
"""Every crop in order: iterating the enum itself is several times slower."""


class CardKind(Enum):
    """The kinds of action card."""

    HELPER = "helper"
    MARKET_STALL = "market_stall"
    REGULAR_CUSTOMER = "regular_customer"
    CASUAL_CUSTOMER = "casual_customer"
    COMMON_FIELD = "common_field"


class EffectKind(Enum):
    """The helper effects the engine implements (the provisional effects of the data file)."""

    SHOP_DISCOUNT = "shop_discount"
    """Your next purchase at your shop this turn costs `amount` less (never below 0)."""
    SALES_BONUS = "sales_bonus"
    """For the rest of your turn, deliveries to regular or to casual customers (you choose which)
    pay `amount` more."""
    STALL_BUY = "stall_buy"
    """Lantern: take 1 crop from another player's market stall, paying that player `amount`."""
    STALL_TRADE = "stall_trade"
    """Lantern: trade once at another player's market stall as if it were yours."""
    DELIVER_OTHER = "deliver_other"
    """Lantern: deliver to another player's regular customer; you take that row's coins."""
    SERVE_OTHER = "serve_other"
    """Lantern: serve another player's casual customer at its printed value."""
    TAKE_CROPS = "take_crops"
    """Take the listed crops from the supply onto your cart."""
    TAKE_CROP_CHOICE = "take_crop_choice"
    """Take 1 crop of your choice from the supply onto your cart."""
    GAIN_CASH = "gain_cash"
    """Take `amount` coins from the supply."""
    UPGRADE_STOREHOUSE = "upgrade_storehouse"
    """Upgrade your storehouse for free (only while it is not upgraded)."""


LANTERN_EFFECTS = frozenset(
    {
        EffectKind.STALL_BUY,
        EffectKind.STALL_TRADE,
        EffectKind.DELIVER_OTHER,
        EffectKind.SERVE_OTHER,
    }
)
"""Effects that act on another player's cards (they need a target)."""


@dataclass(frozen=True, slots=True)
class Effect:
    """A helper's effect as the engine plays it."""

    kind: EffectKind
    amount: int = 0
    crops: tuple[Crop, ...] = ()

    def text(self) -> str:
        """A one-line human description."""
        crops = ", ".join(c.wire for c in self.crops)
        return {
            EffectKind.SHOP_DISCOUNT: f"next shop purchase this turn costs {self.amount} less",
            EffectKind.SALES_BONUS: f"+{self.amount} on every delivery to all regular or all "
            "casual customers (chosen on use) for the rest of the turn",
            EffectKind.STALL_BUY: f"take 1 crop from another player's market stall, paying "
            f"that player {self.amount}",
            EffectKind.STALL_TRADE: "trade once at another player's market stall",
            EffectKind.DELIVER_OTHER: "deliver to another player's regular customer and take "
            "the row's coins",
            EffectKind.SERVE_OTHER: "serve another player's casual customer at its printed value",
            EffectKind.TAKE_CROPS: f"take {crops} from the supply onto the cart",
            EffectKind.TAKE_CROP_CHOICE: "take 1 crop of your choice onto the cart",
            EffectKind.GAIN_CASH: f"take {self.amount} coins",
            EffectKind.UPGRADE_STOREHOUSE: "upgrade the storehouse for free",
        }[self.kind]


@dataclass(frozen=True, slots=True)
class HelperDef:
    """A helper card."""

    id: str
    name: str | None
    """None when the real name is unknown."""
    lantern: bool
    effect: Effect
    """The effect the engine plays (provisional for every helper so far)."""
    printed: str | None
    """What is known of the printed effect, or None when it is unknown."""

    @property
    def kind(self) -> CardKind:
        return CardKind.HELPER


@dataclass(frozen=True, slots=True)
class StallDef:
    """A market stall: per crop, how many tokens it holds and how many crops one costs."""

    id: str
    stock: Counts
    cost: Counts
    """0 for crops the stall does not offer."""

    @property
    def kind(self) -> CardKind:
        return CardKind.MARKET_STALL


@dataclass(frozen=True, slots=True)
class RegularDef:
    """A regular customer: the 2 crops of every delivery and the coins per row, bottom first."""

    id: str
    crops: tuple[Crop, ...]
    rows: tuple[int, ...]
    blue_dot: bool

    @property
    def kind(self) -> CardKind:
        return CardKind.REGULAR_CUSTOMER


@dataclass(frozen=True, slots=True)
class CasualDef:
    """A casual customer: 3 crops for a printed number of coins."""

    id: str
    crops: tuple[Crop, ...]
    payout: int

    @property
    def kind(self) -> CardKind:
        return CardKind.CASUAL_CUSTOMER


@dataclass(frozen=True, slots=True)
class FieldDef:
    """A field card: home, private (per player) or common (in the action deck)."""

    id: str
    size: int
    allowed: frozenset[Crop]

    @property
    def kind(self) -> CardKind:
        return CardKind.COMMON_FIELD


CardDef = HelperDef | StallDef | RegularDef | CasualDef | FieldDef


@dataclass(frozen=True, slots=True)
class Mark:
    """Where a value comes from: a source, or a provisional choice with its reason."""

    sourced: bool
    key: str
    text: str

    def label(self) -> str:
        """ "[sourced: ...]" or "[PROVISIONAL: ...]"."""
        return f"[sourced: {self.text}]" if self.sourced else f"[PROVISIONAL: {self.text}]"


@dataclass(frozen=True, slots=True)
class Constants:
    """The scalar rules values of the data file."""

    rounds: int
    hand_size: int
    deck_size: int
    helpers: int
    starting_cash: int
    path_start: int
    max_same_home_crop: int
    loan_amount: int
    loan_penalty: int
    common_field_cost: int
    storehouse_base: int
    storehouse_upgraded: int
    storehouse_upgrade_cost: int
    regular_fine: int
    casual_modifier: int
    first_step_cost: int
    path_floor: int
    solo_row_costs: tuple[int, ...]
    solo_grid_columns: int
    solo_dummy: tuple[int, int, int]
    """Market stalls, regular customers, casual customers of the solo opponent."""
    solo_ratings: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class GameData:
    """Everything the data file holds, checked."""

    constants: Constants
    buy: Counts
    sell: Counts
    shop_stock: Counts
    shop_capacity: Counts
    home: FieldDef
    private: tuple[FieldDef, ...]
    cards: dict[str, CardDef]
    """Every action card by id, in data-file order."""
    marks: dict[str, Mark]
    """Provenance by dotted path, e.g. "shop.buy" or "cards.RC01.rows"."""
