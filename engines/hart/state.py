"""The state of a Hart an der Grenze match: frozen values (cards as `Bag`s), rebuilt each step."""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace

from engines.api import Json, Seat
from engines.frozen import Enum, setters
from engines.hart.data import CARDS, GOODS, INDEX, NAMES, START_MONEY, Good


@dataclass(frozen=True, slots=True)
class Bag:
    """A multiset of goods cards: how many of each kind, in `GOODS` order."""

    counts: tuple[int, ...] = (0, 0, 0, 0, 0, 0)

    @staticmethod
    def of(goods: Iterable[Good]) -> Bag:
        """The bag holding exactly `goods`."""
        counts = [0] * len(GOODS)
        for good in goods:
            counts[INDEX[good]] += 1
        return _bag(tuple(counts))

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
        return _bag((a0 + b0, a1 + b1, a2 + b2, a3 + b3, a4 + b4, a5 + b5))

    def __sub__(self, other: Bag) -> Bag:
        a0, a1, a2, a3, a4, a5 = self.counts
        b0, b1, b2, b3, b4, b5 = other.counts
        left = (a0 - b0, a1 - b1, a2 - b2, a3 - b3, a4 - b4, a5 - b5)
        if min(left) < 0:
            raise ValueError(f"cannot take {other} out of {self}")
        return _bag(left)

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
        return self.counts[INDEX[good]]

    def names(self) -> list[Json]:
        """The wire form: one lower-case name per card, cheapest kind first."""
        counts = self.counts
        names = _NAMES.get(counts)
        if names is None:
            names = tuple([name for name, n in zip(NAMES, counts, strict=True) for _ in range(n)])
            if len(names) <= _NAMES_UP_TO:
                _NAMES[counts] = names
        return list(names)

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
        """Every distinct sub-multiset with `low`..`high` cards, smaller first, then by kind.

        "By kind" is descending lexicographic order of the counts (more of the cheapest kind
        first). The bags are shared: those of `bags_up_to(high)`.
        """
        bags = bags_up_to(high)
        return tuple([bags[i] for i in self.sub_bag_positions(low, high)])

    def sub_bag_positions(self, low: int, high: int) -> list[int]:
        """Where `sub_bags(low, high)` lies in `bags_up_to(high)`, in the same order; a game's
        own table over those bags (one action per bag) reads the same positions.

        A small bag walks its own sub-multisets, a large one filters the table, whichever has
        fewer candidates.
        """
        sizes, every, position = _table(high)
        c0, c1, c2, c3, c4, c5 = self.counts
        if (c0 + 1) * (c1 + 1) * (c2 + 1) * (c3 + 1) * (c4 + 1) * (c5 + 1) < len(every):
            by_size: list[list[int]] = [[] for _ in range(high + 1)]
            ranges = [range(n, -1, -1) for n in self.counts]
            for counts in itertools.product(*ranges):  # descending lexicographic order
                size = sum(counts)
                if low <= size <= high:
                    by_size[size].append(position[counts])
            return [i for same in by_size for i in same]
        return [
            i
            for i, (a0, a1, a2, a3, a4, a5) in enumerate(every)
            if low <= sizes[i]
            and a0 <= c0
            and a1 <= c1
            and a2 <= c2
            and a3 <= c3
            and a4 <= c4
            and a5 <= c5
        ]


_set_counts = setters(Bag, "counts")[0]


def _bag(counts: tuple[int, ...]) -> Bag:
    """`Bag(counts)` through its slot's setter (see `engines.frozen`): bag arithmetic runs
    several times per decision."""
    bag = object.__new__(Bag)
    _set_counts(bag, counts)
    return bag


_NAMES: dict[tuple[int, ...], tuple[Json, ...]] = {}
"""The names of the small bags seen so far: hands, suitcases and what is sold or seized recur."""
_NAMES_UP_TO = 12
"""Bags of at most this many cards have their names remembered (a few thousand at most)."""


@functools.cache
def bags_up_to(high: int) -> tuple[Bag, ...]:
    """Every bag of at most `high` cards, in `Bag.sub_bags` order (built once, shared)."""
    return tuple(Bag(counts) for counts in _table(high)[1])


@functools.cache
def _table(
    high: int,
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...], dict[tuple[int, ...], int]]:
    """The sizes and counts of `bags_up_to(high)`, and each one's position by its counts."""
    descending = range(high, -1, -1)
    every = [c for c in itertools.product(descending, repeat=len(GOODS)) if sum(c) <= high]
    every.sort(key=sum)  # stable: descending lexicographic order within each size
    return tuple(sum(c) for c in every), tuple(every), {c: i for i, c in enumerate(every)}


EMPTY = Bag()


class Phase(Enum):
    """What the match is waiting for; also the label of the decision."""

    PACK = "pack"
    DECLARE = "declare"
    INSPECT = "inspect"
    BRIBE = "bribe"
    EXTRA_CONTROL = "extra_control"
    SEIZE = "seize"
    KEEP = "keep"
    APPOINT = "appoint"
    OVER = "over"


class Control(Enum):
    """Which check a negotiation belongs to."""

    INSPECTION = "inspection"
    EXTRA_CONTROL = "extra_control"


class TieRule(Enum):
    """Who settles a tie for poorest at a round's end."""

    EN = "en"
    """The English rulebook: the tied player first clockwise from the last sheriff picks."""
    ZH = "zh"
    """The Chinese summary: the player left of the last sheriff becomes sheriff."""


@dataclass(frozen=True, slots=True)
class Config:
    """The resolved options of a match."""

    strict_count: bool = False
    """H2: no compensation when the declared count differs from the suitcase size."""
    tie_rule: TieRule = TieRule.EN
    """H12: how a tie for poorest is settled."""
    max_offers: int = 3
    """Bribe proposals each side may make in one negotiation."""

    @staticmethod
    def from_options(options: Mapping[str, object]) -> Config:
        """Build from options already checked by `Rules.resolve_options`."""
        return Config(
            strict_count=bool(options.get("strict_count", False)),
            tie_rule=TieRule(str(options.get("next_sheriff_tie", "en"))),
            max_offers=int(str(options.get("max_offers", 3))),
        )


@dataclass(frozen=True, slots=True)
class Declaration:
    """What a trader announced: `count` cards of the legal good `good`."""

    count: int
    good: Good


@dataclass(frozen=True, slots=True)
class Negotiation:
    """A bribe negotiation between the sheriff and the trader it inspects."""

    seat: Seat
    """The inspected trader."""
    control: Control
    offers: tuple[tuple[Seat, int], ...] = ()
    """Every proposal so far as (who, amount), oldest first."""

    def count_by(self, seat: Seat) -> int:
        """How many proposals `seat` has made."""
        return sum(1 for who, _ in self.offers if who == seat)

    def last(self) -> tuple[Seat, int] | None:
        """The standing proposal, if any."""
        return self.offers[-1] if self.offers else None


@dataclass(frozen=True, slots=True)
class Player:
    """Everything one seat owns."""

    money: int = START_MONEY
    hand: Bag = EMPTY
    suitcase: Bag = EMPTY
    declaration: Declaration | None = None
    behind: Bag = EMPTY
    """Goods brought across the border this round, face down behind the suitcase."""
    under: Bag = EMPTY
    """Goods kept for the end-of-game sale, face down under the suitcase."""
    seizure_token: bool = True
    extra_control_token: bool = False


@dataclass(frozen=True, slots=True)
class HartState:
    """A whole match at one decision."""

    config: Config
    number: int
    """The number of the next decision."""
    phase: Phase
    round: int
    """0, 1, 2."""
    turn: int
    """The turn within the round, 0-based."""
    sheriff: Seat
    players: tuple[Player, ...]
    deck: tuple[Good, ...]
    """The draw pile, top card first."""
    discard: Bag
    """The face-up discard pile."""
    traders: tuple[Seat, ...] = ()
    """The seats that packed this turn, in declaration order (clockwise from the sheriff)."""
    selected: tuple[Seat, ...] = ()
    """Seats inspected this turn (opened or bribed), in order."""
    negotiation: Negotiation | None = None
    queue: tuple[Seat, ...] = ()
    """Seats still to act in a sequential phase (declare, keep), next first; the appointer."""
    last_sheriff: Seat | None = None
    """The sheriff of the last turn, while a round is being closed."""

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.players)

    @property
    def turns_per_round(self) -> int:
        """Every seat is sheriff once per round, twice with three seats."""
        return 2 * self.seats if self.seats == 3 else self.seats

    def player(self, seat: Seat) -> Player:
        """The player in `seat`."""
        return self.players[seat]

    def with_player(self, seat: Seat, **changes: object) -> HartState:
        """This state with some fields of one player changed."""
        players = list(self.players)
        players[seat] = replace(players[seat], **changes)  # type: ignore[arg-type]
        return replace(self, players=tuple(players))

    def clockwise(self, start: Seat) -> tuple[Seat, ...]:
        """Every seat once, clockwise, starting at `start`."""
        return tuple((start + i) % self.seats for i in range(self.seats))

    def total_cards(self) -> Bag:
        """Every card in the match, wherever it is (always the full deck)."""
        total = Bag.of(self.deck) + self.discard
        for p in self.players:
            total = total + p.hand + p.suitcase + p.behind + p.under
        return total
