"""The fixed data of Hart an der Grenze: goods cards, end-sale caps and the game's numbers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engines.frozen import Enum


class Good(Enum):
    """A kind of goods card, in the rulebook's order (also the order of the end-of-game sale)."""

    JUG = "jug"
    MARACAS = "maracas"
    SOMBRERO = "sombrero"
    CIGAR = "cigar"
    TEQUILA = "tequila"
    STATUE = "statue"

    @property
    def index(self) -> int:
        """The position of this good in `GOODS` (0..5)."""
        return INDEX[self]

    @property
    def is_legal(self) -> bool:
        """Whether the good may be declared (jug, maracas, sombrero)."""
        return self in LEGAL_GOODS


@dataclass(frozen=True, slots=True)
class CardData:
    """What is printed on the cards of one kind of good."""

    count: int
    """How many cards of this kind the deck holds."""
    value: int
    """Sale value at a round's end (doubled at the game's end)."""
    penalty: int
    """Paid to the bank for each such card found smuggled; for legal goods also the compensation."""


GOODS: tuple[Good, ...] = tuple(Good)
LEGAL_GOODS: tuple[Good, ...] = (Good.JUG, Good.MARACAS, Good.SOMBRERO)
INDEX: Mapping[Good, int] = {good: i for i, good in enumerate(GOODS)}
"""The position of each good in `GOODS` (a dict: `Good.index` runs several times per decision)."""
NAMES: tuple[str, ...] = tuple(good.value for good in GOODS)
"""The wire name of each good, in `GOODS` order."""
GOOD_BY_NAME: Mapping[str, Good] = {good.value: good for good in GOODS}

CARDS: Mapping[Good, CardData] = {
    Good.JUG: CardData(count=39, value=2, penalty=1),
    Good.MARACAS: CardData(count=30, value=3, penalty=2),
    Good.SOMBRERO: CardData(count=23, value=4, penalty=3),
    Good.CIGAR: CardData(count=18, value=7, penalty=5),
    Good.TEQUILA: CardData(count=16, value=9, penalty=6),
    Good.STATUE: CardData(count=13, value=12, penalty=8),
}
DECK_SIZE = sum(data.count for data in CARDS.values())
"""139 cards."""

SALE_CAPS: Mapping[int, tuple[int, ...]] = {
    3: (6, 5, 4, 3, 2, 2),
    4: (8, 6, 5, 4, 3, 2),
    5: (10, 8, 6, 5, 4, 3),
    6: (12, 10, 8, 6, 5, 4),
}
"""Per seat count, how many cards of each good (in `GOODS` order) sell at the game's end."""

SEAT_COUNTS = (3, 4, 5, 6)
ROUNDS = 3
HAND_SIZE = 5
"""Every hand is refilled to this many cards before each turn."""
MAX_PACK = 5
"""A suitcase holds 1 to this many cards; a declaration names 1 to this many."""
KEEP_PER_ROUND = 3
"""Cards from behind the suitcase a player may keep for the end-of-game sale each round."""
START_MONEY = 30
EXTRA_CONTROL_SEATS = 5
"""Extra control tokens are in play only with this many seats or more."""
