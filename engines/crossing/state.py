"""The immutable match state of Double Crossing, with its settings, prompts and pending tasks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engines.api import Termination
from engines.crossing.data import BOARDS, DEFAULT_BOARD, Board, Car
from engines.frozen import Enum
from engines.options import Option

OPTIONS: tuple[Option, ...] = (
    Option(
        "round_cap",
        int,
        150,
        "rounds (every seat's turn once; extra turns do not count) before the game ends on "
        "contracts, then money (part B)",
        minimum=1,
        maximum=100_000,
    ),
    Option(
        "board",
        str,
        DEFAULT_BOARD,
        "the packaged board data file to play on",
        choices=tuple(sorted(BOARDS)),
    ),
    Option(
        "extra_turn_cap",
        int,
        3,
        "most extra turns chained onto one player's turn (D18)",
        minimum=0,
        maximum=50,
    ),
    Option(
        "win_central",
        str,
        "reach",
        "win by passing or landing on Central Station with enough "
        "contracts ('reach') or only by stopping there ('exact') (D10)",
        choices=("reach", "exact"),
    ),
    Option(
        "stops_per_turn",
        int,
        1,
        "most Stop cards played against one turn, first clockwise from the active seat's left (D9)",
        minimum=1,
        maximum=5,
    ),
    Option(
        "duel_tie",
        str,
        "reroll",
        "a tied 1-die duel is re-rolled ('reroll') or won by the defending seat ('defender') (D8)",
        choices=("reroll", "defender"),
    ),
    Option(
        "loose_cars_take",
        str,
        "one",
        "a locomotive stopping on dropped cars takes the oldest "
        "one ('one') or all of them ('all') (D12)",
        choices=("one", "all"),
    ),
    Option(
        "villain_choice",
        str,
        "victim",
        "who picks the car a Villain victim drops: 'victim' or 'villain' (D13)",
        choices=("victim", "villain"),
    ),
    Option(
        "contract_sale_percent",
        int,
        50,
        "percent of its price a contract sold to raise cash "
        "fetches, rounded down to a banknote (D14)",
        minimum=0,
        maximum=100,
    ),
    Option(
        "connections_cars",
        bool,
        False,
        "a contract bought at CONNECTIONS still needs and returns its cars (the seed says "
        "nothing of cars: off by default)",
    ),
)


@dataclass(frozen=True, slots=True)
class Settings:
    """The resolved options of one match."""

    round_cap: int
    """Rounds (every seat's regular turn once) after which the game ends by part B."""
    board: str
    """The packaged board file."""
    extra_turn_cap: int
    """Most extra turns chained onto one player's turn."""
    win_exact: bool
    """Only stopping on Central Station wins (else passing counts too)."""
    stops_per_turn: int
    """Most Stop cards played against one turn."""
    tie_to_defender: bool
    """A tied duel goes to the defender instead of being re-rolled."""
    take_all_loose: bool
    """Stopping on dropped cars takes all of them, not just the oldest."""
    villain_chooses: bool
    """The Villain's player, not the victim, picks the dropped car."""
    contract_sale_percent: int
    """What a contract sold to raise cash fetches, in percent of its price."""
    connections_cars: bool
    """CONNECTIONS still needs and returns the contract's cars."""

    @staticmethod
    def of(options: Mapping[str, object]) -> Settings:
        """Settings from resolved options."""
        return Settings(
            round_cap=_int(options["round_cap"]),
            board=str(options["board"]),
            extra_turn_cap=_int(options["extra_turn_cap"]),
            win_exact=options["win_central"] == "exact",
            stops_per_turn=_int(options["stops_per_turn"]),
            tie_to_defender=options["duel_tie"] == "defender",
            take_all_loose=options["loose_cars_take"] == "all",
            villain_chooses=options["villain_choice"] == "villain",
            contract_sale_percent=_int(options["contract_sale_percent"]),
            connections_cars=bool(options["connections_cars"]),
        )


def _int(value: object) -> int:
    if not isinstance(value, int):
        raise TypeError(f"expected an int option, got {value!r}")
    return value


class Label(Enum):
    """The kinds of decision; the value is the decision's label."""

    DECLARE = "declare"
    VILLAIN_CAR = "villain_car"
    DISCARD = "discard"
    TRAIN_SHOP = "train_shop"
    ROUTE = "route"
    BUY_CREW = "buy_crew"
    YARD = "yard"
    TRADE = "trade"
    CONNECTIONS = "connections"
    DERAIL_CAR = "derail_car"
    DOUBLE_CROSS = "double_cross"
    ROUNDHOUSE = "roundhouse"
    TOWER_TARGET = "tower_target"
    TOWER_SPACE = "tower_space"
    DISSATISFIED = "dissatisfied"
    RACK_LIMIT = "rack_limit"
    RAISE_CASH = "raise_cash"


class CrewMode(Enum):
    """How Railroad Crew cards change this turn's roll."""

    NONE = "none"
    SLOW = "slow"
    REVERSE = "reverse"
    SLOW_REVERSE = "slow_reverse"

    @property
    def cards(self) -> int:
        """Railroad Crew cards this mode costs."""
        return 2 if self._value_ == "slow_reverse" else int(self._value_ != "none")

    # By value: `CrewMode.X` reads go through EnumType's slow __getattr__ hook (Python 3.11).
    @property
    def slow(self) -> bool:
        return self._value_ in ("slow", "slow_reverse")

    @property
    def reverse(self) -> bool:
        return self._value_ in ("reverse", "slow_reverse")


class Op(Enum):
    """A pending step of the rules (see `engines.crossing.turns`)."""

    BEGIN_TURN = "begin_turn"
    VILLAIN = "villain"
    ROLL = "roll"
    BUY_CARDS = "buy_cards"
    MOVE = "move"
    LAND = "land"
    EFFECT = "effect"
    RACK_CHECK = "rack_check"
    DEBT = "debt"
    END_TURN = "end_turn"


@dataclass(frozen=True, slots=True)
class Task:
    """One pending step: an operation and its arguments."""

    op: Op
    seat: int = -1
    other: int = -1
    """DEBT: the payee (-1 = the bank); VILLAIN: the seat that picks the car."""
    amount: int = 0
    """DEBT: the sum; MOVE: the steps."""
    own: bool = True
    """LAND/EFFECT: the active seat stops on its own turn (not moved by CONTROL TOWER)."""
    flag: bool = False
    """MOVE: counter-clockwise; EFFECT: a dropped car was taken on arrival."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """The decision the state waits for, with what its legal actions depend on."""

    label: Label
    seats: tuple[int, ...]
    """The deciding seats, in clockwise order from the active seat's left."""
    seat: int
    """The seat the decision is about (the owner of the rack, the resolver of the space)."""
    own: bool = True
    value: int = 0
    """BUY_CREW: most cards; TRADE: trades done; RAISE_CASH: the debt; TOWER_SPACE: target."""
    space: int = -1
    """TRADE: the space; RAISE_CASH: the payee (-1 = the bank)."""
    spaces: tuple[int, ...] = ()
    """ROUTE, ROUNDHOUSE, TOWER_SPACE: the spaces offered."""
    passes: tuple[int, ...] = ()
    """ROUTE: the destinations whose path passes Central Station."""


@dataclass(frozen=True, slots=True)
class Player:
    """One seat's locomotive, money, rack, hand and contracts."""

    position: int
    money: int
    rack: tuple[int, ...]
    """Cars per type (`CARS` order); public."""
    hand: tuple[int, ...]
    """Crew cards per type (`CREWS` order); only the seat itself may see it."""
    contracts: tuple[int, ...]
    """Contract indices, in the order they were taken; public."""


@dataclass(frozen=True, slots=True)
class TurnState:
    """The turn in progress: who plays and what this turn has earned or declared."""

    active: int
    chain: int = 0
    """Extra turns already chained onto this player's turn."""
    crew: CrewMode = CrewMode.NONE
    engineer: bool = False
    """An Engineer was declared (held aside until the turn ends)."""
    occupied: bool = False
    """The locomotive stopped where another one stands (extra turn)."""
    roll_again: bool = False
    ends: bool = False
    """The turn ends outright: no extra turn, no Engineer (STOP, Roundhouse, Dissatisfied)."""
    no_engineer: bool = False
    """DERAIL: the Engineer may not be played."""
    stops: int = 0
    """Stop cards played against this turn."""
    lost: bool = False
    """A Stop duel took this turn away."""


@dataclass(frozen=True, slots=True)
class CrossingState:
    """A whole match at one decision."""

    settings: Settings
    number: int
    """The number of the next decision (decisions applied so far)."""
    players: tuple[Player, ...]
    yards: tuple[int, ...]
    stacks: tuple[tuple[int, ...], ...]
    """Per company (board order): the contracts lying below its TRADE space."""
    loose: tuple[tuple[Car, ...], ...]
    """Per space: dropped cars, oldest first."""
    depot: int
    piles: tuple[tuple[int, ...], ...]
    """The face-down crew piles, as crew-type indices, top first; their order is secret."""
    discard: tuple[int, ...]
    """Face-up discarded crew cards per type."""
    turns: int
    """Turns begun so far, extra turns included."""
    regular_turns: int
    """Regular turns begun so far (extra turns not counted): the round cap counts these."""
    turn: TurnState
    tasks: tuple[Task, ...]
    """Pending steps, the last runs first."""
    prompt: Prompt | None
    winner: int | None
    termination: Termination | None

    @property
    def board(self) -> Board:
        """The board this match is played on."""
        return BOARDS[self.settings.board]

    def __deepcopy__(self, memo: dict[int, object]) -> CrossingState:
        """Every field is immutable all the way down, so a copy is the state itself."""
        return self
