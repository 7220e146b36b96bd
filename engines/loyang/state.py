"""The match state of Loyang: immutable players, boards, decks and the turn in progress."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.frozen import Enum
from engines.loyang.cards import Counts, Crop


class Phase(Enum):
    """Where the match is."""

    SETUP = "setup"
    """Seats sow their home fields, in turn from the start player."""
    CARD = "card"
    OPPONENT = "opponent"
    """4-player paired variant: the first start player picks an opponent."""
    ACTION = "action"
    CLOSING = "closing"
    """scoring_timing=end_of_round: every seat stores and scores after all have acted."""
    OVER = "over"


class Stage(Enum):
    """Where one seat's action turn is."""

    ACT = "action"
    KEEP = "keep"
    """A card pair was drawn; the seat decides what to keep."""
    STORE = "store"
    SCORE = "score"
    DONE = "done"


class Timing(Enum):
    """When seats store and score (research L13)."""

    OWN_TURN = "end_of_own_turn"
    ROUND = "end_of_round"


class Bonus(Enum):
    """Which customers a sales bonus helper boosts."""

    REGULAR = "regular"
    CASUAL = "casual"


DUMMY = -1
"""The target seat number of the solo game's imaginary opponent."""


@dataclass(frozen=True, slots=True)
class Config:
    """The resolved options of a match."""

    seats: int
    solo: bool
    """One seat: the solo rules (grid, imaginary opponent)."""
    beginner: bool
    two_player_rule: bool
    paired: bool
    timing: Timing
    strict_stock: bool
    """Buying needs stock in your shop and selling needs a free space (research L2)."""
    regular_max: int
    """Deliveries to one regular customer per round (research L14)."""
    solo_discard_row: int
    """The grid row (1 = top) whose leftover cards are discarded after a solo card phase."""
    voluntary_loans: bool
    """Loans also at any time of the seat's own action turn, not only when money is due (L22)."""


@dataclass(frozen=True, slots=True)
class Field:
    """A field in a player's row: unsown (crop None) or sown with `count` crops left."""

    id: str
    size: int
    allowed: frozenset[Crop]
    crop: Crop | None = None
    count: int = 0
    common: bool = False
    under: str | None = None
    """The back card of a kept pair, placed when this field is discarded."""


@dataclass(frozen=True, slots=True)
class Stall:
    """A market stall and the crops left on it."""

    card: str
    goods: Counts
    under: str | None = None


@dataclass(frozen=True, slots=True)
class Helper:
    """A helper waiting to be used."""

    card: str
    under: str | None = None


@dataclass(frozen=True, slots=True)
class Regular:
    """A regular customer: rows delivered, satisfaction and its four-round window."""

    card: str
    start: int
    """The first round of its window (deliveries are owed in rounds start..start+3)."""
    rows: int = 0
    good: bool = True
    last: int = 0
    """The round of the latest delivery."""
    times: int = 0
    """Deliveries made in round `last`."""
    under: str | None = None


@dataclass(frozen=True, slots=True)
class Casual:
    """A casual customer waiting to be served."""

    card: str
    under: str | None = None


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's board, cards and money; everything but `hand` and `stack` order is public."""

    cash: int
    loans: int
    position: int
    upgraded: bool
    cart: Counts
    store: Counts
    """The storehouse (warehouse)."""
    shop: Counts
    fields: tuple[Field, ...]
    stack: tuple[str, ...]
    """The face-down private fields, top first (two piles of four)."""
    stalls: tuple[Stall, ...] = ()
    helpers: tuple[Helper, ...] = ()
    regulars: tuple[Regular, ...] = ()
    casuals: tuple[Casual, ...] = ()
    hand: tuple[str, ...] = ()
    due: int = 0
    """Money owed that the seat must raise (sell, helpers, loans) before play goes on."""


@dataclass(frozen=True, slots=True)
class Dummy:
    """The solo game's imaginary opponent: stalls and customers for lantern helpers."""

    stalls: tuple[Stall, ...]
    regulars: tuple[Regular, ...]
    casuals: tuple[Casual, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """One seat's action turn in progress."""

    seat: int
    stage: Stage = Stage.ACT
    steps: int = 0
    pair_bought: bool = False
    drawn: tuple[str, ...] = ()
    discount: int = 0
    """Pending shop discount from helpers, used by the next purchase."""
    bonus_regular: int = 0
    bonus_casual: int = 0


@dataclass(frozen=True, slots=True)
class LoyangState:
    """The whole match."""

    number: int
    config: Config
    round: int
    phase: Phase
    players: tuple[Player, ...]
    deck: tuple[str, ...]
    discard: tuple[str, ...]
    face_down: int
    """How many cards at the bottom of `discard` lie face down (solo setup)."""
    courtyard: tuple[str, ...]
    start: int
    second: int
    queue: tuple[int, ...] = ()
    """SETUP: seats still to sow their home field, in order."""
    current: int = 0
    """CARD: the seat whose turn it is."""
    opened: bool = False
    """CARD: the start player has made the opening play."""
    out: tuple[int, ...] = ()
    """CARD: seats in the order they ran out of cards."""
    grid: tuple[str | None, ...] = ()
    """Solo: the 3-wide, 4-row grid, row by row."""
    picks: int = 0
    """Solo: cards bought from the grid this round."""
    dummy: Dummy | None = None
    partners: tuple[int, ...] = ()
    """4-player paired variant: each seat's opponent this round."""
    groups: tuple[tuple[int, ...], ...] = ()
    """Seats still to take their action turn this round, group by group."""
    turns: tuple[Turn, ...] = ()
    """The action turns in progress (two at once in the paired variant)."""
    acted: frozenset[int] = frozenset()
    """Seats whose action turn ended this round."""
    reshuffled: bool = False
    """Solo: the one reshuffle of the discard pile has happened."""

    def __deepcopy__(self, memo: dict[int, Any]) -> LoyangState:
        """A state is an immutable value (frozen dataclasses and tuples): its copy is itself."""
        return self


def turn_of(state: LoyangState, seat: int) -> Turn | None:
    """The action turn of `seat`, if it is taking one."""
    for turn in state.turns:
        if turn.seat == seat:
            return turn
    return None
