"""The goods cards of Hart an der Grenze: card data, sale caps, multisets and the end sale."""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from engines.api import Json


class Good(enum.Enum):
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
        return _INDEX[self]

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
_INDEX = {good: i for i, good in enumerate(GOODS)}
_NAMES: tuple[str, ...] = tuple(good.value for good in GOODS)

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

GOOD_BY_NAME: Mapping[str, Good] = {good.value: good for good in GOODS}


@dataclass(frozen=True, slots=True)
class Bag:
    """A multiset of goods cards: how many of each kind, in `GOODS` order."""

    counts: tuple[int, ...] = (0, 0, 0, 0, 0, 0)

    @staticmethod
    def of(goods: Iterable[Good]) -> Bag:
        """The bag holding exactly `goods`."""
        counts = [0] * len(GOODS)
        for good in goods:
            counts[_INDEX[good]] += 1
        return Bag(tuple(counts))

    @staticmethod
    def full_deck() -> Bag:
        """All 139 cards."""
        return Bag(tuple(CARDS[good].count for good in GOODS))

    def __len__(self) -> int:
        return sum(self.counts)

    def __iter__(self) -> Iterator[Good]:
        """The cards, cheapest kind first."""
        return iter([good for good, n in zip(GOODS, self.counts, strict=True) for _ in range(n)])

    # The arithmetic is unrolled over the six kinds: it runs several times per decision.
    def __add__(self, other: Bag) -> Bag:
        a0, a1, a2, a3, a4, a5 = self.counts
        b0, b1, b2, b3, b4, b5 = other.counts
        return Bag((a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5))

    def __sub__(self, other: Bag) -> Bag:
        a0, a1, a2, a3, a4, a5 = self.counts
        b0, b1, b2, b3, b4, b5 = other.counts
        left = (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5)
        if min(left) < 0:
            raise ValueError(f"cannot take {other} out of {self}")
        return Bag(left)

    def __le__(self, other: Bag) -> bool:
        """Whether this bag is a sub-multiset of `other`."""
        a0, a1, a2, a3, a4, a5 = self.counts
        b0, b1, b2, b3, b4, b5 = other.counts
        return a0 <= b0 and a1 <= b1 and a2 <= b2 and a3 <= b3 and a4 <= b4 and a5 <= b5

    def __str__(self) -> str:
        parts = [f"{n} {good.value}" for good, n in zip(GOODS, self.counts, strict=True) if n]
        return ", ".join(parts) or "nothing"

    def count(self, good: Good) -> int:
        """How many cards of `good` the bag holds."""
        return self.counts[good.index]

    def names(self) -> list[Json]:
        """The wire form: one lower-case name per card, cheapest kind first."""
        return [name for name, n in zip(_NAMES, self.counts, strict=True) for _ in range(n)]

    def value(self) -> int:
        """The printed sale value of every card."""
        return sum(n * CARDS[good].value for good, n in zip(GOODS, self.counts, strict=True))

    def penalty(self) -> int:
        """The printed penalty (or compensation) of every card."""
        return sum(n * CARDS[good].penalty for good, n in zip(GOODS, self.counts, strict=True))

    def first(self) -> Good | None:
        """The cheapest kind present, or None for an empty bag."""
        return next(iter(self), None)

    def sub_bags(self, low: int, high: int) -> tuple[Bag, ...]:
        """Every distinct sub-multiset with `low`..`high` cards, smaller first, then by kind."""
        return _sub_bags(self.counts, low, high)


@functools.lru_cache(maxsize=8192)
def _sub_bags(counts: tuple[int, ...], low: int, high: int) -> tuple[Bag, ...]:
    found: list[tuple[int, tuple[int, ...]]] = []

    def walk(kind: int, chosen: tuple[int, ...], size: int) -> None:
        if kind == len(counts):
            if low <= size:
                found.append((size, chosen))
            return
        for take in range(min(counts[kind], high - size), -1, -1):
            walk(kind + 1, (*chosen, take), size + take)

    walk(0, (), 0)
    found.sort(key=lambda item: item[0])
    return tuple(Bag(chosen) for _, chosen in found)


EMPTY = Bag()


def split_by_declaration(suitcase: Bag, count: int, good: Good) -> tuple[Bag, Bag]:
    """(matching, mismatching): cards of the declared kind up to the declared count match."""
    held = suitcase.count(good)
    matching = Bag.of([good] * min(held, count))
    return matching, suitcase - matching


def double_sale(holdings: Sequence[int], cap: int, value: int) -> tuple[int, ...]:
    """Income per seat from selling one good at double value under the cap (rulebook end sale).

    The biggest holders sell first, as long as the cap allows; a tied group that does not fit
    shares the proceeds of what is left, each rounded down, and the remainder is lost.
    """
    price = 2 * value
    if sum(holdings) <= cap:
        return tuple(h * price for h in holdings)
    income = [0] * len(holdings)
    left = cap
    for amount in sorted({h for h in holdings if h > 0}, reverse=True):
        if left == 0:
            break
        group = [s for s, h in enumerate(holdings) if h == amount]
        if amount * len(group) <= left:
            for seat in group:
                income[seat] = amount * price
            left -= amount * len(group)
        else:
            for seat in group:
                income[seat] = left * price // len(group)
            left = 0
    return tuple(income)
