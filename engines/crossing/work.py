"""The mutable working copy of one state, with the primitive moves of money, cars and cards.

`CrossingRules.step` thaws the state into a `Work`, lets the rule functions change it in place
(each `emit` collects an event of this step) and freezes the result, so the state a caller holds
is never touched. One copy per step is cheaper than a `dataclasses.replace` per change. The
rows a step rarely changes (a seat's rack, hand and contracts; the cars dropped on each space,
the contract stacks, the crew piles) stay tuples, replaced whole when one changes, so the next
state shares every row and every player the step left alone. A seat's rows (position, money,
rack, hand, contracts) are changed through `Work`'s methods only, which note the seat: `freeze`
builds a new player for the seats noted and shares the others without comparing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypeVar

from engines.api import Event, Json, Seat, Termination
from engines.crossing.data import CARS, Car
from engines.crossing.members import RACK_CHECK
from engines.crossing.records import evolve_turn, new_prompt, new_task, new_turn
from engines.crossing.state import (
    CrossingState,
    Label,
    Player,
    Prompt,
    Task,
)
from engines.frozen import event, one_seat, setters
from engines.rng import Rng

_new: Final = object.__new__

_LEFT_OF: Final = tuple(
    tuple(tuple((seat + k) % seats for k in range(1, seats)) for seat in range(seats))
    for seats in range(8)
)
"""`Work.left_of` for up to 7 seats, by seat count and seat: asked several times a turn."""


T = TypeVar("T")


def put(row: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """`row` with the item at `index` replaced by `value`."""
    return (*row[:index], value, *row[index + 1 :])


def as_json(values: Sequence[int]) -> list[Json]:
    """A list of ints typed as JSON (lists are invariant)."""
    out: list[Json] = []
    out.extend(values)
    return out


class Work:
    """Everything of a state, in lists (of tuple rows), plus the events and the chance source."""

    def __init__(self, state: CrossingState, rng: Rng) -> None:
        self.board = state.board
        self.settings = state.settings
        self.rng = rng
        self.number = state.number
        self.seats = len(state.players)
        self.before = state.players
        """The players the step began with: `freeze` keeps each one that did not change."""
        self.changed: set[Seat] = set()
        """The seats whose rows a method below has changed: `freeze` builds their players anew."""
        self.position = [p.position for p in state.players]
        self.money = [p.money for p in state.players]
        # Per-seat rows stay tuples too, replaced whole (`add_cars`, `add_cards`, ...): a player
        # whose rows are the ones it began with is shared with the next state.
        self.rack: list[tuple[int, ...]] = [p.rack for p in state.players]
        self.hand: list[tuple[int, ...]] = [p.hand for p in state.players]
        self.contracts: list[tuple[int, ...]] = [p.contracts for p in state.players]
        # The board-wide rows and their tables stay tuples, replaced whole when one item changes
        # (`put`): most steps change none of them, so the next state shares them untouched
        # instead of copying each into a list and back (the spaces' dropped cars are ~50 rows).
        self.yards: tuple[int, ...] = state.yards
        self.stacks: tuple[tuple[int, ...], ...] = state.stacks
        self.loose: tuple[tuple[Car, ...], ...] = state.loose
        self.depot = state.depot
        self.piles: tuple[tuple[int, ...], ...] = state.piles
        self.discard: tuple[int, ...] = state.discard
        self.turns = state.turns
        self.regular_turns = state.regular_turns
        self.turn = state.turn
        self.tasks = list(state.tasks)
        self.prompt: Prompt | None = state.prompt
        self.winner = state.winner
        self.termination = state.termination
        self.events: list[Event] = []
        """The events of this step, in order; `Event.number` is the state's `number`."""

    def freeze(self, number: int) -> CrossingState:
        """The state this working copy has become, waiting for decision `number`."""
        return _state(self, number)

    # -- bookkeeping ----------------------------------------------------------------------------
    def emit(self, kind: str, audience: Seat | None = None, **data: Json) -> None:
        """Record an event; `audience` limits it to one seat."""
        seen_by = None if audience is None else one_seat(audience)
        self.events.append(event(self.number, kind, seen_by, data))

    def then(self, *tasks: Task) -> None:
        """Run `tasks` next, in this order (before anything already pending)."""
        if len(tasks) == 1:
            self.tasks.append(tasks[0])
        else:
            self.tasks.extend(reversed(tasks))

    def ask(
        self,
        label: Label,
        seat: Seat,
        *,
        own: bool = True,
        value: int = 0,
        space: int = -1,
        spaces: tuple[int, ...] = (),
        passes: tuple[int, ...] = (),
    ) -> None:
        """Wait for `seat`'s decision (the context fields are those of `Prompt`)."""
        self.prompt = new_prompt(label, (seat,), seat, own, value, space, spaces, passes)

    def ask_seats(self, label: Label, seats: tuple[Seat, ...], about: Seat) -> None:
        """Wait for the decisions of `seats` about `about`."""
        self.prompt = new_prompt(label, seats, about)

    def set_turn(self, **changes: Any) -> None:
        """Change fields of the turn in progress."""
        self.turn = evolve_turn(self.turn, **changes)

    def end_game(self, termination: Termination, winner: Seat | None = None) -> None:
        """Stop the match: nothing pending, nobody asked."""
        self.winner = winner
        self.termination = termination
        self.tasks.clear()
        self.prompt = None
        self.emit("game_over", winner=winner, reason=termination.value)

    def left_of(self, seat: Seat) -> tuple[Seat, ...]:
        """The other seats, clockwise from `seat`'s left (a shared, precomputed tuple)."""
        return _LEFT_OF[self.seats][seat]

    def place(self, seat: Seat, space: int) -> None:
        """Put `seat`'s locomotive on `space`."""
        self.position[seat] = space
        self.changed.add(seat)

    def occupied(self, seat: Seat) -> bool:
        """Whether another locomotive stands where `seat`'s does."""
        return self.position.count(self.position[seat]) > 1

    def new_turn(self, active: Seat, chain: int) -> None:
        """Start a fresh turn record."""
        self.turn = new_turn(active, chain)

    # -- dice ---------------------------------------------------------------------------------
    def die(self) -> int:
        """Roll one die."""
        return self.rng.below(6) + 1  # = roll(6, 1)[0], the same draw without the tuple

    # -- cars ---------------------------------------------------------------------------------
    def cars(self, seat: Seat) -> int:
        """How many cars `seat` holds."""
        return sum(self.rack[seat])

    def add_cars(self, seat: Seat, kind: int, count: int) -> None:
        """Change `seat`'s cars of type index `kind` by `count`."""
        row = self.rack[seat]
        self.rack[seat] = (*row[:kind], row[kind] + count, *row[kind + 1 :])
        self.changed.add(seat)

    def add_cards(self, seat: Seat, kind: int, count: int) -> None:
        """Change `seat`'s crew cards of type index `kind` by `count`."""
        row = self.hand[seat]
        self.hand[seat] = (*row[:kind], row[kind] + count, *row[kind + 1 :])
        self.changed.add(seat)

    def gain_contract(self, seat: Seat, index: int) -> None:
        """Give `seat` the contract `index`, last in its order."""
        self.contracts[seat] = (*self.contracts[seat], index)
        self.changed.add(seat)

    def lose_contract(self, seat: Seat, index: int) -> None:
        """Take the contract `index` from `seat`."""
        held = self.contracts[seat]
        at = held.index(index)
        self.contracts[seat] = held[:at] + held[at + 1 :]
        self.changed.add(seat)

    def car_types(self, seat: Seat) -> list[Car]:
        """The car types `seat` holds, in `CARS` order."""
        return [car for i, car in enumerate(CARS) if self.rack[seat][i]]

    def gain_from_yard(self, seat: Seat, car: Car, why: str) -> bool:
        """Take a car from its yard (if one is left) and check the rack limit."""
        i = CARS.index(car)
        if not self.yards[i]:
            self.emit("yard_empty", seat=seat, car=car.value, why=why)
            return False
        self.yards = put(self.yards, i, self.yards[i] - 1)
        self.add_cars(seat, i, 1)
        self.emit("car_gained", seat=seat, car=car.value, why=why)
        self.then(new_task(RACK_CHECK, seat))
        return True

    def sell_car(self, seat: Seat, car: Car, why: str) -> None:
        """Sell a car back to its yard at the sale price."""
        i = CARS.index(car)
        price = self.board.car_sale_price(car)
        self.add_cars(seat, i, -1)
        self.yards = put(self.yards, i, self.yards[i] + 1)
        self.add_money(seat, price)
        self.emit("car_sold", seat=seat, car=car.value, price=price, why=why)

    def drop_car(self, seat: Seat, car: Car, why: str) -> None:
        """Put a car from `seat`'s rack onto the space where its locomotive stands."""
        self.add_cars(seat, CARS.index(car), -1)
        here = self.position[seat]
        self.loose = put(self.loose, here, (*self.loose[here], car))
        self.emit("car_dropped", seat=seat, car=car.value, space=here, why=why)

    # -- money --------------------------------------------------------------------------------
    def add_money(self, seat: Seat, amount: int) -> None:
        """Change `seat`'s money by `amount` (negative to spend)."""
        self.money[seat] += amount
        self.changed.add(seat)

    def pay(self, payer: Seat, amount: int, payee: Seat | None, why: str) -> None:
        """Move money from `payer` to `payee` (None = the bank); the payer must have it."""
        self.add_money(payer, -amount)
        if payee is not None:
            self.add_money(payee, amount)
        self.emit("paid", seat=payer, amount=amount, to=payee, why=why)

    # -- crew cards ---------------------------------------------------------------------------
    def hand_size(self, seat: Seat) -> int:
        """How many crew cards `seat` holds (public)."""
        return sum(self.hand[seat])

    def cards_left(self) -> int:
        """Crew cards that can still be drawn (piles and discards)."""
        return sum(len(p) for p in self.piles) + sum(self.discard)


def _state(w: Work, number: int) -> CrossingState:
    """`CrossingState(...)` of `w` now, cheaper (`engines.frozen`)."""
    state = object.__new__(CrossingState)
    (set_settings, set_number, set_players, set_yards, set_stacks, set_loose, set_depot,
     set_piles, set_discard, set_turns, set_regular_turns, set_turn, set_tasks, set_prompt,
     set_winner, set_termination) = _STATE_SETTERS  # fmt: skip
    set_settings(state, w.settings)
    set_number(state, number)
    set_players(state, _players(w))
    set_yards(state, w.yards)
    set_stacks(state, w.stacks)
    set_loose(state, w.loose)
    set_depot(state, w.depot)
    set_piles(state, w.piles)
    set_discard(state, w.discard)
    set_turns(state, w.turns)
    set_regular_turns(state, w.regular_turns)
    set_turn(state, w.turn)
    set_tasks(state, tuple(w.tasks))
    set_prompt(state, w.prompt)
    set_winner(state, w.winner)
    set_termination(state, w.termination)
    return state


def _players(w: Work) -> tuple[Player, ...]:
    """The frozen players: a new one for each seat changed, the others shared with the step's
    start."""
    before = w.before
    if len(before) != w.seats:  # setup: no players yet
        return tuple([_player(w, seat) for seat in range(w.seats)])
    if not w.changed:
        return before
    players = list(before)
    for seat in w.changed:
        players[seat] = _player(w, seat)
    return tuple(players)


def _player(w: Work, seat: Seat) -> Player:
    """`Player(...)` of `seat`'s rows now, cheaper (`engines.frozen`)."""
    p = _new(Player)
    (set_position, set_money, set_rack, set_hand, set_contracts) = _PLAYER_SETTERS  # fmt: skip
    set_position(p, w.position[seat])
    set_money(p, w.money[seat])
    set_rack(p, w.rack[seat])
    set_hand(p, w.hand[seat])
    set_contracts(p, w.contracts[seat])
    return p


_PLAYER_SETTERS: Final = setters(
    Player,
    "position",
    "money",
    "rack",
    "hand",
    "contracts",
)
_STATE_SETTERS: Final = setters(
    CrossingState,
    "settings",
    "number",
    "players",
    "yards",
    "stacks",
    "loose",
    "depot",
    "piles",
    "discard",
    "turns",
    "regular_turns",
    "turn",
    "tasks",
    "prompt",
    "winner",
    "termination",
)
"""`Player(...)` and `CrossingState(...)`, cheaper (`engines.frozen`)."""
