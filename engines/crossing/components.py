"""The typed form of a Double Crossing board: its cars, crew cards, spaces and contracts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines.frozen import Enum


class Car(Enum):
    """A car type; the order is the order of every per-type count tuple."""

    PASSENGER = "passenger"
    BOX = "box"
    HOPPER = "hopper"
    TANK = "tank"


class Crew(Enum):
    """A crew card type; the order is the order of every per-type count tuple."""

    RAILROAD_CREW = "railroad_crew"
    VILLAIN = "villain"
    ENGINEER = "engineer"
    STOP = "stop"


class Kind(Enum):
    """What a space does when a locomotive stops on it."""

    START = "start"
    CENTRAL = "central_station"
    PLAIN = "plain"
    GOVT_CONTRACT = "govt_contract"
    TRAIN_SHOP = "train_shop"
    TRADE = "trade"
    ROLL_AGAIN = "roll_again"
    STOP = "stop"
    PAY_TAXES = "pay_taxes"
    YARD = "yard"
    CREW_CARDS = "crew_cards"
    CORNER_STATION = "corner_station"
    DERAIL = "derail"
    DOUBLE_CROSS = "double_cross"
    ROUNDHOUSE = "roundhouse"
    CONTROL_TOWER = "control_tower"
    DEPOT = "depot"
    DISSATISFIED = "dissatisfied_customer"
    CONNECTIONS = "connections"


CARS = tuple(Car)
CREWS = tuple(Crew)


@dataclass(frozen=True, slots=True)
class Space:
    """One space of the track."""

    index: int
    name: str
    kind: Kind
    next: tuple[int, ...]
    """Clockwise successors; two or more make a junction where the mover chooses."""
    amount: int = 0
    """PAY TAXES: the tax."""
    car: Car | None = None
    """YARD: the car type sold there."""
    companies: tuple[str, ...] = ()
    """TRADE: the companies whose contracts lie below this space."""


@dataclass(frozen=True, slots=True)
class Contract:
    """One contract card."""

    index: int
    id: str
    company: str
    cars: tuple[int, ...]
    """Cars needed, per type in `CARS` order."""
    price: int


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where one value of the file comes from, for `arena rules crossing`."""

    path: str
    value: Any
    source: str
    """A `sources` key (sourced) or a proposal key D1..D20 (proposed)."""


@dataclass(frozen=True, slots=True)
class Board:
    """A validated board file."""

    name: str
    title: str
    sourced: bool
    spaces: tuple[Space, ...]
    prev: tuple[tuple[int, ...], ...]
    """Counter-clockwise successors (START is never entered)."""
    start: int
    central: int
    companies: tuple[tuple[str, str], ...]
    """(id, name) per company."""
    contracts: tuple[Contract, ...]
    contract_ids: tuple[str, ...]
    """Contract ids by index."""
    car_count: tuple[int, ...]
    car_price: tuple[int, ...]
    face_car: tuple[Car, ...]
    """The car type of die faces 1..6."""
    crew_count: tuple[int, ...]
    money_step: int
    start_money: int
    depot_start: int
    depot_refill: int
    crew_card_price: int
    passenger_fee: int
    car_sale_percent: int
    hand: int
    rack: int
    contracts_per_visit: int
    win_contracts: int
    special_rolls: int
    crew_piles: int
    provenance: tuple[Provenance, ...]
    ahead: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    """Clockwise successors, by space: `next` of every space, gathered once."""
    routes: dict[tuple[int, int, bool], tuple[tuple[int, ...], tuple[int, ...]]] = field(
        init=False, repr=False, compare=False
    )
    """`moves.paths` results by (start, steps, reverse): the board never changes, so a walk
    computed once holds for every match on it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "ahead", tuple(s.next for s in self.spaces))
        object.__setattr__(self, "routes", {})

    def contract(self, contract_id: str) -> Contract | None:
        """The contract with this id, or None."""
        return next((c for c in self.contracts if c.id == contract_id), None)

    def round_down(self, amount: int) -> int:
        """`amount` rounded down to the smallest banknote."""
        return amount // self.money_step * self.money_step

    def car_sale_price(self, car: Car) -> int:
        """What the bank pays for a car sold back to its yard."""
        return self.round_down(self.car_price[CARS.index(car)] * self.car_sale_percent // 100)
