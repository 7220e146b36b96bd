"""Carrying out the space a locomotive stops on: every space but the contract ones (`contracts`).

Each space's landing effect, its legal choices and its answer sit together here; `carry_out`
dispatches on the kind of space.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.api import ListedSpace, Seat
from engines.crossing import contracts
from engines.crossing.actions import Accept, Action, Buy, BuyCar, Pass, PickCar, PickSeat, PickSpace
from engines.crossing.cards import draw
from engines.crossing.components import CARS, Car, Kind
from engines.crossing.decisions import listed, pick_cars, pick_space, unanswered
from engines.crossing.members import (
    BUY_CARDS,
    BUY_CREW,
    CONTROL_TOWER,
    DEBT,
    DERAIL_CAR,
    KIND_ROUNDHOUSE,
    LABEL_ROUNDHOUSE,
    TOWER_SPACE,
    TOWER_TARGET,
    TRAIN_SHOP,
    YARD,
)
from engines.crossing.moves import arrive, rolls_double, teleport_targets
from engines.crossing.records import new_task
from engines.crossing.state import CrossingState, Prompt, Task
from engines.crossing.work import Work

PASSENGER = CARS.index(Car.PASSENGER)


def carry_out(w: Work, task: Task) -> None:
    """Carry out the space where `task.seat` stands (`task.own`: on its own turn)."""
    SPACES[w.board.spaces[w.position[task.seat]].kind](w, task)


def nothing(w: Work, task: Task) -> None:
    """START, Central Station (without enough contracts) and plain spaces do nothing."""


# -- GOVT CONTRACT (and CORNER STATIONS; General rule 1): buying crew cards ---------------------
def govt_contract(w: Work, task: Task) -> None:
    """GOVT CONTRACT: the seat may buy crew cards."""
    w.then(new_task(BUY_CARDS, task.seat))


def offer_crew_cards(w: Work, task: Task) -> None:
    """Roll 1 die: the most cards that may be bought, as the purse and the piles allow."""
    seat = task.seat
    die = w.die()
    most = min(die, w.money[seat] // w.board.crew_card_price, w.cards_left())
    w.emit("crew_offer", seat=seat, die=die, most=most)
    if most:
        w.ask(BUY_CREW, seat, value=most)


def buy_crew_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Buy 0..most cards."""
    return listed([Buy(n) for n in range(prompt.value + 1)])


def answer_buy_crew(w: Work, prompt: Prompt, action: Action) -> None:
    """Pay for the cards and draw them."""
    if not isinstance(action, Buy):
        unanswered(prompt, action)
    elif action.count:
        seat = prompt.seats[0]
        w.pay(seat, action.count * w.board.crew_card_price, None, "crew_cards")
        draw(w, seat, action.count, "bought")


# -- TRAIN SHOP ---------------------------------------------------------------------------------
def train_shop(w: Work, task: Task) -> None:
    """「可擲1顆骰子」: rolling the die for a free car is the seat's choice."""
    w.ask(TRAIN_SHOP, task.seat, own=task.own)


def train_shop_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Roll (the default) or not."""
    return listed([Accept(), Pass()])


def answer_train_shop(w: Work, prompt: Prompt, action: Action) -> None:
    """Roll 1 die and take the car it names from the yards, free."""
    if not isinstance(action, Accept):
        unanswered(prompt, action)
        return
    seat = prompt.seats[0]
    die = w.die()
    w.emit("train_shop", seat=seat, die=die)
    w.gain_from_yard(seat, w.board.face_car[die - 1], "train_shop")


# -- ROLL AGAIN, STOP, PAY TAXES, CREW CARDS, DEPOT ---------------------------------------------
def roll_again(w: Work, task: Task) -> None:
    """ROLL AGAIN: another turn (on the seat's own turn)."""
    if task.own:
        w.set_turn(roll_again=True)


def stop_space(w: Work, task: Task) -> None:
    """STOP: the turn ends outright (no extra turn, even on an occupied space)."""
    if task.own:
        w.set_turn(ends=True)


def pay_taxes(w: Work, task: Task) -> None:
    """PAY TAXES: a debt to the bank of the printed amount."""
    amount = w.board.spaces[w.position[task.seat]].amount
    w.then(new_task(DEBT, task.seat, amount=amount))


def crew_cards(w: Work, task: Task) -> None:
    """CREW CARDS: draw one."""
    draw(w, task.seat, 1, "crew_cards")


def depot(w: Work, task: Task) -> None:
    """DEPOT: take the money lying there; the bank puts the refill back."""
    taken, w.depot = w.depot, w.board.depot_refill
    w.add_money(task.seat, taken)
    w.emit("depot", seat=task.seat, amount=taken, refill=w.depot)


# -- YARD ---------------------------------------------------------------------------------------
def yard(w: Work, task: Task) -> None:
    """YARD: the seat may buy its car, if one is left and the purse allows."""
    car = w.board.spaces[w.position[task.seat]].car
    if car is None:
        return
    price = w.board.car_price[CARS.index(car)]
    if w.yards[CARS.index(car)] and w.money[task.seat] >= price:
        w.ask(YARD, task.seat, own=task.own)


def yard_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Buy nothing or the car."""
    return listed([Pass(), BuyCar()])


def answer_yard(w: Work, prompt: Prompt, action: Action) -> None:
    """Pay the yard's price and take the car."""
    if not isinstance(action, BuyCar):
        unanswered(prompt, action)
        return
    seat = prompt.seats[0]
    car = w.board.spaces[w.position[seat]].car
    assert car is not None
    w.pay(seat, w.board.car_price[CARS.index(car)], None, "yard")
    w.gain_from_yard(seat, car, "yard")


# -- CORNER STATIONS ----------------------------------------------------------------------------
def corner_station(w: Work, task: Task) -> None:
    """Every other seat owes a fee per passenger car (clockwise); then crew cards may be bought."""
    seat = task.seat
    w.then(new_task(BUY_CARDS, seat))
    if w.rack[seat][PASSENGER]:
        fee = w.board.passenger_fee * w.rack[seat][PASSENGER]
        w.then(*(new_task(DEBT, payer, other=seat, amount=fee) for payer in w.left_of(seat)))


# -- DERAIL -------------------------------------------------------------------------------------
def derail(w: Work, task: Task) -> None:
    """A car lying here was taken on arrival; else drop one. The Engineer may not be played."""
    seat = task.seat
    if task.own:
        w.set_turn(no_engineer=True)
    if task.flag:  # the car lying here was taken on arrival
        return
    types = w.car_types(seat)
    if len(types) == 1:
        w.drop_car(seat, types[0], "derail")
    elif types:
        w.ask(DERAIL_CAR, seat)


def derail_car_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """The car types of the seat's rack."""
    return listed(pick_cars(state.players[prompt.seat].rack))


def answer_derail_car(w: Work, prompt: Prompt, action: Action) -> None:
    """Leave the chosen car on the DERAIL space."""
    if isinstance(action, PickCar):
        w.drop_car(prompt.seats[0], action.car, "derail")
    else:
        unanswered(prompt, action)


# -- ROUNDHOUSE ---------------------------------------------------------------------------------
def roundhouse(w: Work, task: Task) -> None:
    """A double within the special rolls lets the seat move anywhere; none ends the turn."""
    seat, own = task.seat, task.own
    if rolls_double(w, seat, "roundhouse"):
        banned = [KIND_ROUNDHOUSE] if own else [KIND_ROUNDHOUSE, CONTROL_TOWER]
        w.ask(LABEL_ROUNDHOUSE, seat, own=own, spaces=teleport_targets(w.board, banned))
    elif own:
        w.set_turn(ends=True)


def roundhouse_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """「可將…移至」: may move, so staying is a choice; else any offered space."""
    return listed([Pass(), *(pick_space(s) for s in prompt.spaces)])


def answer_roundhouse(w: Work, prompt: Prompt, action: Action) -> None:
    """Move to the chosen space and carry it out."""
    if isinstance(action, PickSpace):
        arrive(w, prompt.seats[0], action.space, False, prompt.own, "roundhouse")
    else:
        unanswered(prompt, action)


# -- CONTROL TOWER ------------------------------------------------------------------------------
def control_tower(w: Work, task: Task) -> None:
    """CONTROL TOWER: move any other seat's locomotive (or nobody's) anywhere (D11)."""
    w.ask(TOWER_TARGET, task.seat)


def tower_target_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Nobody, or any other seat."""
    return listed([Pass(), *(PickSeat(s) for s in range(len(state.players)) if s != seat)])


def answer_tower_target(w: Work, prompt: Prompt, action: Action) -> None:
    """Ask where to send the chosen seat."""
    if isinstance(action, PickSeat):
        spaces = teleport_targets(w.board, [CONTROL_TOWER])
        w.ask(TOWER_SPACE, prompt.seats[0], value=action.seat, spaces=spaces)
    else:
        unanswered(prompt, action)


def tower_space_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Any space but START and CONTROL TOWER; the default leaves the target where it is."""
    here = state.players[prompt.value].position
    default = prompt.spaces.index(here) if here in prompt.spaces else 0
    return listed([pick_space(s) for s in prompt.spaces], default)


def answer_tower_space(w: Work, prompt: Prompt, action: Action) -> None:
    """Send the target there; it carries the space out, with no extra turn."""
    if isinstance(action, PickSpace):
        w.emit("control_tower", seat=prompt.seats[0], target=prompt.value, to=action.space)
        arrive(w, prompt.value, action.space, False, False, "control_tower")
    else:
        unanswered(prompt, action)


SPACES: dict[Kind, Callable[[Work, Task], None]] = {
    Kind.START: nothing,
    Kind.CENTRAL: nothing,
    Kind.PLAIN: nothing,
    Kind.GOVT_CONTRACT: govt_contract,
    Kind.TRAIN_SHOP: train_shop,
    Kind.TRADE: contracts.trade,
    Kind.ROLL_AGAIN: roll_again,
    Kind.STOP: stop_space,
    Kind.PAY_TAXES: pay_taxes,
    Kind.YARD: yard,
    Kind.CREW_CARDS: crew_cards,
    Kind.CORNER_STATION: corner_station,
    Kind.DERAIL: derail,
    Kind.DOUBLE_CROSS: contracts.double_cross,
    Kind.ROUNDHOUSE: roundhouse,
    Kind.CONTROL_TOWER: control_tower,
    Kind.DEPOT: depot,
    Kind.DISSATISFIED: contracts.dissatisfied,
    Kind.CONNECTIONS: contracts.connections,
}
"""The rule of each kind of space."""
assert set(SPACES) == set(Kind)
