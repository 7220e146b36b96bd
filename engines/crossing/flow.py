"""The turn sequence: pending tasks run one by one until a seat must decide or the game ends."""

from __future__ import annotations

from collections.abc import Callable

from engines.api import Seat, Termination
from engines.crossing.data import CARS, Board, Car, Kind
from engines.crossing.legal import (
    ENGINEER,
    connections_options,
    teleport_targets,
    trade_options,
)
from engines.crossing.state import Label, Op, Task
from engines.crossing.table import Table, as_json

PASSENGER = CARS.index(Car.PASSENGER)


def run(t: Table) -> None:
    """Run pending tasks until a decision is needed or the match is over."""
    while t.prompt is None and t.termination is None:
        if not t.tasks:  # pragma: no cover - every turn queues the next one
            raise AssertionError("the rules ran out of work with the match still running")
        task = t.tasks.pop()
        HANDLERS[task.op](t, task)


def paths(board: Board, start: int, steps: int, reverse: bool) -> tuple[list[int], list[int]]:
    """Where a move of `steps` can end, and which of those ends pass Central Station on the way."""
    links = board.prev if reverse else tuple(s.next for s in board.spaces)
    frontier = {(start, False)}
    for _ in range(steps):
        frontier = {(n, passed or n == board.central) for at, passed in frontier for n in links[at]}
    ends = sorted({at for at, _ in frontier})
    return ends, sorted({at for at, passed in frontier if passed})


def arrive(t: Table, seat: Seat, space: int, passed_central: bool, own: bool, how: str) -> None:
    """Put a locomotive on `space`; check the win; then carry the space out."""
    t.position[seat] = space
    t.emit("moved", seat=seat, to=space, how=how)
    reached = space == t.board.central or (passed_central and not t.settings.win_exact)
    if reached and len(t.contracts[seat]) >= t.board.win_contracts:
        t.end_game(Termination.COMPLETED, seat)
        return
    t.then(Task(Op.LAND, seat, own=own))


def ask_trade(t: Table, seat: Seat, space: int, done: int) -> None:
    """Offer the contracts of a TRADE space, while the per-visit limit allows."""
    if done >= t.board.contracts_per_visit:
        return
    if trade_options(t.board, t.stacks, space, t.rack[seat], t.money[seat]):
        t.ask(Label.TRADE, seat, value=done, space=space)


def _begin_turn(t: Table, task: Task) -> None:
    regular = task.amount == 0
    if regular and t.regular_turns >= t.settings.round_cap * t.seats:
        t.end_game(Termination.TURN_LIMIT)
        return
    t.turns += 1
    t.regular_turns += int(regular)
    t.new_turn(task.seat, task.amount)
    t.emit("turn", seat=task.seat, turn=t.turns, extra=task.amount)
    # One simultaneous decision before the roll: the active seat declares its plan while every
    # other seat holding any card may play Stop. Hand sizes are public, so who is asked reveals
    # nothing about who holds a Stop, and nobody sees the others' choices before making theirs.
    others = tuple(s for s in t.left_of(task.seat) if t.hand_size(s))
    t.ask_seats(Label.DECLARE, (task.seat, *others), task.seat)


def _villain(t: Table, task: Task) -> None:
    victim = task.seat
    types = t.car_types(victim)
    if len(types) == 1:
        t.drop_car(victim, types[0], "villain")
    elif types:
        t.ask_seats(Label.VILLAIN_CAR, (task.other,), victim)


def _roll(t: Table, task: Task) -> None:
    seat, crew = t.turn.active, t.turn.crew
    dice = [t.die()] if crew.slow else [t.die(), t.die()]
    t.emit("rolled", seat=seat, dice=as_json(dice), crew=crew.value)
    t.then(Task(Op.MOVE, seat, amount=sum(dice), flag=crew.reverse))
    if len(dice) == 2 and dice[0] == dice[1]:
        if dice[0] == 6:
            t.gain_from_yard(seat, Car.BOX, "double_six")
        elif t.hand_size(seat):
            t.ask(Label.DISCARD, seat)


def _buy_cards(t: Table, task: Task) -> None:
    seat = task.seat
    die = t.die()
    most = min(die, t.money[seat] // t.board.crew_card_price, t.cards_left())
    t.emit("crew_offer", seat=seat, die=die, most=most)
    if most:
        t.ask(Label.BUY_CREW, seat, value=most)


def _move(t: Table, task: Task) -> None:
    ends, passes = paths(t.board, t.position[task.seat], task.amount, task.flag)
    wins = len(t.contracts[task.seat]) >= t.board.win_contracts and not t.settings.win_exact
    if passes and wins:  # the way through Central Station ends the game there and then
        arrive(t, task.seat, t.board.central, True, True, "moved")
    elif len(ends) == 1:
        arrive(t, task.seat, ends[0], ends[0] in passes, True, "moved")
    elif ends:
        t.ask(Label.ROUTE, task.seat, spaces=tuple(ends), passes=tuple(passes))


def _land(t: Table, task: Task) -> None:
    seat = task.seat
    if task.own and t.occupied(seat):
        t.set_turn(occupied=True)
    took = bool(t.loose[t.position[seat]])
    t.then(Task(Op.EFFECT, seat, own=task.own, flag=took))
    t.take_loose(seat)


def _rolls_double(t: Table, seat: Seat, why: str) -> bool:
    """Roll two dice up to `special_rolls` times; True at the first double (no movement)."""
    for attempt in range(1, t.board.special_rolls + 1):
        dice = [t.die(), t.die()]
        t.emit("special_roll", seat=seat, why=why, attempt=attempt, dice=as_json(dice))
        if dice[0] == dice[1]:
            return True
    return False


def _effect(t: Table, task: Task) -> None:
    seat, own = task.seat, task.own
    space = t.board.spaces[t.position[seat]]
    kind = space.kind
    if kind in (Kind.GOVT_CONTRACT, Kind.CORNER_STATION):
        t.then(Task(Op.BUY_CARDS, seat))
    if kind is Kind.CORNER_STATION and t.rack[seat][PASSENGER]:
        fee = t.board.passenger_fee * t.rack[seat][PASSENGER]
        t.then(*(Task(Op.DEBT, payer, other=seat, amount=fee) for payer in t.left_of(seat)))
    elif kind is Kind.TRAIN_SHOP:  # 「可擲1顆骰子」: the roll is the player's choice
        t.ask(Label.TRAIN_SHOP, seat, own=own)
    elif kind is Kind.TRADE:
        ask_trade(t, seat, space.index, 0)
    elif kind is Kind.ROLL_AGAIN and own:
        t.set_turn(roll_again=True)
    elif kind is Kind.STOP and own:
        t.set_turn(ends=True)
    elif kind is Kind.PAY_TAXES:
        t.then(Task(Op.DEBT, seat, amount=space.amount))
    elif kind is Kind.YARD and space.car is not None:
        price = t.board.car_price[CARS.index(space.car)]
        if t.yards[CARS.index(space.car)] and t.money[seat] >= price:
            t.ask(Label.YARD, seat, own=own)
    elif kind is Kind.CREW_CARDS:
        t.draw(seat, 1, "crew_cards")
    elif kind is Kind.DERAIL:
        _derail(t, seat, own, task.flag)
    elif kind is Kind.DOUBLE_CROSS:
        if any(t.contracts[o] for o in t.left_of(seat)):
            t.ask(Label.DOUBLE_CROSS, seat)
        else:
            t.emit("no_effect", seat=seat, why="nobody else holds a contract")
    elif kind is Kind.ROUNDHOUSE:
        if _rolls_double(t, seat, "roundhouse"):
            banned = [Kind.ROUNDHOUSE] if own else [Kind.ROUNDHOUSE, Kind.CONTROL_TOWER]
            t.ask(Label.ROUNDHOUSE, seat, own=own, spaces=teleport_targets(t.board, banned))
        elif own:
            t.set_turn(ends=True)
    elif kind is Kind.CONTROL_TOWER:
        t.ask(Label.TOWER_TARGET, seat)
    elif kind is Kind.DEPOT:
        taken, t.depot = t.depot, t.board.depot_refill
        t.money[seat] += taken
        t.emit("depot", seat=seat, amount=taken, refill=t.depot)
    elif kind is Kind.DISSATISFIED:
        _dissatisfied(t, seat, own)
    elif kind is Kind.CONNECTIONS:
        cars = t.settings.connections_cars
        if connections_options(t.board, t.stacks, t.rack[seat], t.money[seat], cars):
            t.ask(Label.CONNECTIONS, seat)


def train_shop(t: Table, seat: Seat) -> None:
    """Roll 1 die at TRAIN SHOP and take the car it names from the yards, free."""
    die = t.die()
    t.emit("train_shop", seat=seat, die=die)
    t.gain_from_yard(seat, t.board.face_car[die - 1], "train_shop")


def _derail(t: Table, seat: Seat, own: bool, took: bool) -> None:
    if own:
        t.set_turn(no_engineer=True)
    if took:  # the car lying here was taken on arrival
        return
    types = t.car_types(seat)
    if len(types) == 1:
        t.drop_car(seat, types[0], "derail")
    elif types:
        t.ask(Label.DERAIL_CAR, seat)


def _dissatisfied(t: Table, seat: Seat, own: bool) -> None:
    if own:  # every outcome ends the turn: no extra turn, no Engineer
        t.set_turn(ends=True)
    held = t.contracts[seat]
    if not held:
        t.emit("no_effect", seat=seat, why="no contract to lose")
    elif _rolls_double(t, seat, "dissatisfied_customer"):
        t.emit("customer_satisfied", seat=seat)
    elif len(held) == 1:
        t.return_contract(seat, held[0], "dissatisfied_customer")
    else:
        t.ask(Label.DISSATISFIED, seat)


def _rack_check(t: Table, task: Task) -> None:
    if t.cars(task.seat) > t.board.rack:
        t.ask(Label.RACK_LIMIT, task.seat)


def _debt(t: Table, task: Task) -> None:
    payer, amount = task.seat, task.amount
    payee = None if task.other < 0 else task.other
    if t.money[payer] >= amount:
        if amount:
            t.pay(payer, amount, payee, "debt")
    elif t.cars(payer) or t.contracts[payer]:
        t.ask(Label.RAISE_CASH, payer, value=amount, space=task.other)
    else:
        paid = t.money[payer]
        if paid:
            t.pay(payer, paid, payee, "debt")
        t.emit("debt_forgiven", seat=payer, amount=amount - paid)


def _end_turn(t: Table, task: Task) -> None:
    turn = t.turn
    active = turn.active
    room = turn.chain < t.settings.extra_turn_cap and not turn.lost and not turn.ends
    earned = turn.occupied or turn.roll_again
    used = False
    if turn.engineer:
        used = room and not earned and not turn.no_engineer
        if used:
            t.discard[ENGINEER] += 1
        else:
            t.hand[active][ENGINEER] += 1
        t.emit("engineer", seat=active, used=used)
    if room and (earned or used):
        t.emit("extra_turn", seat=active)
        t.then(Task(Op.BEGIN_TURN, active, amount=turn.chain + 1))
    else:
        t.then(Task(Op.BEGIN_TURN, (active + 1) % t.seats))


HANDLERS: dict[Op, Callable[[Table, Task], None]] = {
    Op.BEGIN_TURN: _begin_turn,
    Op.VILLAIN: _villain,
    Op.ROLL: _roll,
    Op.BUY_CARDS: _buy_cards,
    Op.MOVE: _move,
    Op.LAND: _land,
    Op.EFFECT: _effect,
    Op.RACK_CHECK: _rack_check,
    Op.DEBT: _debt,
    Op.END_TURN: _end_turn,
}
assert set(HANDLERS) == set(Op)
