"""A mutable working copy of one state, with the primitive moves of money, cars and cards.

`apply` thaws the state into a `Table`, runs the rules on it and freezes the result, so the
state a caller holds is never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from engines.api import Json, Seat, Termination
from engines.crossing.data import CARS, CREWS, Car, Crew
from engines.crossing.state import CrossingState, Label, Op, Player, Prompt, Task, TurnState
from engines.events import Event
from engines.rng import Rng


def as_json(values: Sequence[int]) -> list[Json]:
    """A list of ints typed as JSON (lists are invariant)."""
    out: list[Json] = []
    out.extend(values)
    return out


class Table:
    """Everything of a state, in lists, plus the events and the chance source of this step."""

    def __init__(self, state: CrossingState, rng: Rng) -> None:
        self.board = state.board
        self.settings = state.settings
        self.rng = rng
        self.number = state.number
        self.seats = len(state.players)
        self.position = [p.position for p in state.players]
        self.money = [p.money for p in state.players]
        self.rack = [list(p.rack) for p in state.players]
        self.hand = [list(p.hand) for p in state.players]
        self.contracts = [list(p.contracts) for p in state.players]
        self.yards = list(state.yards)
        self.stacks = [list(s) for s in state.stacks]
        self.loose = [list(cars) for cars in state.loose]
        self.depot = state.depot
        self.piles = [list(p) for p in state.piles]
        self.discard = list(state.discard)
        self.turns = state.turns
        self.regular_turns = state.regular_turns
        self.turn = state.turn
        self.tasks = list(state.tasks)
        self.prompt: Prompt | None = state.prompt
        self.winner = state.winner
        self.termination = state.termination
        self.log = state.log
        self.seen = list(state.seen)
        self.events: list[Event] = []

    def freeze(self, number: int) -> CrossingState:
        """The state this table has become, as decision `number`."""
        oldest = min(self.seen)
        log = tuple(e for e in (*self.log, *self.events) if e.number >= oldest)
        return CrossingState(
            settings=self.settings,
            number=number,
            players=tuple(
                Player(
                    self.position[s],
                    self.money[s],
                    tuple(self.rack[s]),
                    tuple(self.hand[s]),
                    tuple(self.contracts[s]),
                )
                for s in range(self.seats)
            ),
            yards=tuple(self.yards),
            stacks=tuple(tuple(s) for s in self.stacks),
            loose=tuple(tuple(cars) for cars in self.loose),
            depot=self.depot,
            piles=tuple(tuple(p) for p in self.piles),
            discard=tuple(self.discard),
            turns=self.turns,
            regular_turns=self.regular_turns,
            turn=self.turn,
            tasks=tuple(self.tasks),
            prompt=self.prompt,
            winner=self.winner,
            termination=self.termination,
            log=log,
            seen=tuple(self.seen),
        )

    # -- bookkeeping ----------------------------------------------------------------------------
    def emit(self, kind: str, audience: Seat | None = None, **data: Json) -> None:
        """Record an event; `audience` limits it to one seat."""
        self.events.append(
            Event.make(self.number, kind, None if audience is None else (audience,), **data)
        )

    def then(self, *tasks: Task) -> None:
        """Run `tasks` next, in this order (before anything already pending)."""
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
        self.prompt = Prompt(label, (seat,), seat, own, value, space, spaces, passes)

    def ask_seats(self, label: Label, seats: tuple[Seat, ...], about: Seat) -> None:
        """Wait for the decisions of `seats` about `about`."""
        self.prompt = Prompt(label, seats, about)

    def set_turn(self, **changes: Any) -> None:
        """Change fields of the turn in progress."""
        self.turn = replace(self.turn, **changes)

    def end_game(self, termination: Termination, winner: Seat | None = None) -> None:
        """Stop the match: nothing pending, nobody asked."""
        self.winner = winner
        self.termination = termination
        self.tasks.clear()
        self.prompt = None
        self.emit("game_over", winner=winner, reason=termination.value)

    def left_of(self, seat: Seat) -> list[Seat]:
        """The other seats, clockwise from `seat`'s left."""
        return [(seat + k) % self.seats for k in range(1, self.seats)]

    def occupied(self, seat: Seat) -> bool:
        """Whether another locomotive stands where `seat`'s does."""
        here = self.position[seat]
        return any(self.position[o] == here for o in range(self.seats) if o != seat)

    def new_turn(self, active: Seat, chain: int) -> None:
        """Start a fresh turn record."""
        self.turn = TurnState(active=active, chain=chain)

    # -- dice ---------------------------------------------------------------------------------
    def die(self) -> int:
        """Roll one die."""
        return self.rng.roll(6, 1)[0]

    def duel(self, attacker: Seat, defender: Seat, why: str) -> Seat:
        """Both roll one die; ties are re-rolled or go to the defender. Returns the winner."""
        while True:
            a, d = self.die(), self.die()
            self.emit("duel", why=why, attacker=attacker, defender=defender, rolls=[a, d])
            if a != d:
                return attacker if a > d else defender
            if self.settings.tie_to_defender:
                return defender

    # -- cars ---------------------------------------------------------------------------------
    def cars(self, seat: Seat) -> int:
        """How many cars `seat` holds."""
        return sum(self.rack[seat])

    def car_types(self, seat: Seat) -> list[Car]:
        """The car types `seat` holds, in `CARS` order."""
        return [car for i, car in enumerate(CARS) if self.rack[seat][i]]

    def gain_from_yard(self, seat: Seat, car: Car, why: str) -> bool:
        """Take a car from its yard (if one is left) and check the rack limit."""
        i = CARS.index(car)
        if not self.yards[i]:
            self.emit("yard_empty", seat=seat, car=car.value, why=why)
            return False
        self.yards[i] -= 1
        self.rack[seat][i] += 1
        self.emit("car_gained", seat=seat, car=car.value, why=why)
        self.then(Task(Op.RACK_CHECK, seat))
        return True

    def sell_car(self, seat: Seat, car: Car, why: str) -> None:
        """Sell a car back to its yard at the sale price."""
        i = CARS.index(car)
        price = self.board.car_sale_price(car)
        self.rack[seat][i] -= 1
        self.yards[i] += 1
        self.money[seat] += price
        self.emit("car_sold", seat=seat, car=car.value, price=price, why=why)

    def drop_car(self, seat: Seat, car: Car, why: str) -> None:
        """Put a car from `seat`'s rack onto the space where its locomotive stands."""
        self.rack[seat][CARS.index(car)] -= 1
        here = self.position[seat]
        self.loose[here].append(car)
        self.emit("car_dropped", seat=seat, car=car.value, space=here, why=why)

    def take_loose(self, seat: Seat) -> bool:
        """On arrival, take the oldest dropped car here (all of them, by option)."""
        here = self.position[seat]
        stack = self.loose[here]
        if not stack:
            return False
        taken = list(stack) if self.settings.take_all_loose else [stack[0]]
        del stack[: len(taken)]
        for car in taken:
            self.rack[seat][CARS.index(car)] += 1
            self.emit("car_picked_up", seat=seat, car=car.value, space=here)
        self.then(Task(Op.RACK_CHECK, seat))
        return True

    # -- money --------------------------------------------------------------------------------
    def pay(self, payer: Seat, amount: int, payee: Seat | None, why: str) -> None:
        """Move money from `payer` to `payee` (None = the bank); the payer must have it."""
        self.money[payer] -= amount
        if payee is not None:
            self.money[payee] += amount
        self.emit("paid", seat=payer, amount=amount, to=payee, why=why)

    # -- contracts ----------------------------------------------------------------------------
    def company_index(self, company: str) -> int:
        """The position of `company` in the board's list."""
        return next(i for i, (cid, _) in enumerate(self.board.companies) if cid == company)

    def take_contract(self, seat: Seat, index: int, price: int, with_cars: bool, why: str) -> None:
        """Pay for a contract lying below its TRADE space, return its cars, and keep it."""
        contract = self.board.contracts[index]
        self.stacks[self.company_index(contract.company)].remove(index)
        self.money[seat] -= price
        if with_cars:
            for i, n in enumerate(contract.cars):
                self.rack[seat][i] -= n
                self.yards[i] += n
        self.contracts[seat].append(index)
        self.emit("contract_taken", seat=seat, contract=contract.id, price=price, why=why)

    def return_contract(self, seat: Seat, index: int, why: str) -> None:
        """Put one of `seat`'s contracts back below its TRADE space."""
        contract = self.board.contracts[index]
        self.contracts[seat].remove(index)
        self.stacks[self.company_index(contract.company)].append(index)
        self.emit("contract_returned", seat=seat, contract=contract.id, why=why)

    # -- crew cards ---------------------------------------------------------------------------
    def hand_size(self, seat: Seat) -> int:
        """How many crew cards `seat` holds (public)."""
        return sum(self.hand[seat])

    def cards_left(self) -> int:
        """Crew cards that can still be drawn (piles and discards)."""
        return sum(len(p) for p in self.piles) + sum(self.discard)

    def draw(self, seat: Seat, count: int, why: str) -> int:
        """Draw up to `count` cards, from the fuller pile; refill from the discards when empty."""
        drawn: list[Json] = []
        for _ in range(count):
            if not any(self.piles) and sum(self.discard) > 0:
                self.reshuffle()
            pile = max(self.piles, key=len)
            if not pile:
                break
            card = pile.pop(0)
            self.hand[seat][card] += 1
            drawn.append(CREWS[card].value)
        self.emit("drew", seat=seat, count=len(drawn), why=why)
        if drawn:
            self.emit("drew_cards", audience=seat, seat=seat, cards=drawn)
        return len(drawn)

    def reshuffle(self) -> None:
        """Shuffle the face-up discards into new face-down piles."""
        cards = [i for i, n in enumerate(self.discard) for _ in range(n)]
        cards = list(self.rng.shuffle(cards))
        self.discard = [0] * len(CREWS)
        k = len(self.piles)
        self.piles = [cards[i::k] for i in range(k)]
        self.emit("reshuffled", piles=[len(p) for p in self.piles])

    def play_card(self, seat: Seat, card: Crew, why: str) -> None:
        """Move a card from `seat`'s hand face up onto the discards."""
        i = CREWS.index(card)
        self.hand[seat][i] -= 1
        self.discard[i] += 1
        self.emit("card_played", seat=seat, card=card.value, why=why)
