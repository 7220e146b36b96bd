"""What each answer does: the effect of a checked joint action on the waiting decision."""

from __future__ import annotations

from collections.abc import Mapping

from engines.api import Seat
from engines.crossing.data import CARS, Crew, Kind
from engines.crossing.flow import arrive, ask_trade, run, train_shop
from engines.crossing.legal import ENGINEER, half_price, teleport_targets
from engines.crossing.state import Label, Op, Prompt, Task
from engines.crossing.table import Table
from engines.crossing.wire import (
    Accept,
    Action,
    Buy,
    BuyCar,
    BuyCards,
    Discard,
    Pass,
    PickCar,
    PickContract,
    PickSeat,
    PickSpace,
    PlayStop,
    Roll,
)


def answer(t: Table, actions: Mapping[Seat, Action]) -> None:
    """Apply the answers to the waiting decision, then run the rules to the next one."""
    prompt = t.prompt
    assert prompt is not None
    t.prompt = None
    for seat in prompt.seats:
        t.seen[seat] = t.number
    if prompt.label is Label.DECLARE:
        _stop(t, prompt, actions)
        if t.turn.lost:
            t.then(Task(Op.END_TURN))
        else:
            _plan(t, prompt.seat, actions[prompt.seat])
    else:
        _single(t, prompt, actions[prompt.seats[0]])
    run(t)


def _stop(t: Table, prompt: Prompt, actions: Mapping[Seat, Action]) -> None:
    active = t.turn.active
    callers = [s for s in prompt.seats[1:] if isinstance(actions[s], PlayStop)]
    room = t.settings.stops_per_turn - t.turn.stops
    for caller in callers[:room]:
        t.play_card(caller, Crew.STOP, "stop")
        t.set_turn(stops=t.turn.stops + 1)
        if t.duel(caller, active, "stop") == caller:
            t.set_turn(lost=True)
            t.emit("turn_lost", seat=active, by=caller)
            return


def _plan(t: Table, seat: Seat, action: Action) -> None:
    villain = action.villain if isinstance(action, Roll | BuyCards) else None
    if isinstance(action, Roll):
        for _ in range(action.crew.cards):
            t.play_card(seat, Crew.RAILROAD_CREW, action.crew.value)
        t.set_turn(crew=action.crew)
        if action.engineer:  # held aside until the turn ends: used, or handed back
            t.hand[seat][ENGINEER] -= 1
            t.set_turn(engineer=True)
            t.emit("engineer_declared", seat=seat)
        main = Task(Op.ROLL, seat)
    else:
        t.emit("buys_instead", seat=seat)
        main = Task(Op.BUY_CARDS, seat)
    tasks = [main, Task(Op.END_TURN)]
    if villain is not None:
        t.play_card(seat, Crew.VILLAIN, "villain")
        chooser = seat if t.settings.villain_chooses else villain
        tasks.insert(0, Task(Op.VILLAIN, villain, other=chooser))
    t.then(*tasks)


def _single(t: Table, prompt: Prompt, action: Action) -> None:
    seat, label, board = prompt.seats[0], prompt.label, t.board
    contract = board.contract(action.contract) if isinstance(action, PickContract) else None
    if label is Label.VILLAIN_CAR and isinstance(action, PickCar):
        t.drop_car(prompt.seat, action.car, "villain")
    elif label is Label.DERAIL_CAR and isinstance(action, PickCar):
        t.drop_car(seat, action.car, "derail")
    elif label is Label.TRAIN_SHOP and isinstance(action, Accept):
        train_shop(t, seat)
    elif label is Label.DISCARD and isinstance(action, Discard):
        t.play_card(seat, action.card, "doubles")
    elif label is Label.ROUTE and isinstance(action, PickSpace):
        arrive(t, seat, action.space, action.space in prompt.passes, True, "moved")
    elif label is Label.BUY_CREW and isinstance(action, Buy):
        if action.count:
            t.pay(seat, action.count * board.crew_card_price, None, "crew_cards")
            t.draw(seat, action.count, "bought")
    elif label is Label.YARD and isinstance(action, BuyCar):
        car = board.spaces[t.position[seat]].car
        assert car is not None
        t.pay(seat, board.car_price[CARS.index(car)], None, "yard")
        t.gain_from_yard(seat, car, "yard")
    elif label is Label.TRADE and contract is not None:
        t.take_contract(seat, contract.index, contract.price, True, "trade")
        ask_trade(t, seat, prompt.space, prompt.value + 1)
    elif label is Label.CONNECTIONS and contract is not None:
        price = half_price(board, contract.price)
        t.take_contract(seat, contract.index, price, t.settings.connections_cars, "connections")
    elif label is Label.DOUBLE_CROSS and contract is not None:
        owner = next(s for s in range(t.seats) if contract.index in t.contracts[s])
        t.emit("double_cross", seat=seat, owner=owner, contract=contract.id)
        if t.duel(seat, owner, "double_cross") == seat:
            t.contracts[owner].remove(contract.index)
            t.contracts[seat].append(contract.index)
            t.emit("contract_moved", seat=seat, owner=owner, contract=contract.id)
    elif label is Label.ROUNDHOUSE and isinstance(action, PickSpace):
        arrive(t, seat, action.space, False, prompt.own, "roundhouse")
    elif label is Label.TOWER_TARGET and isinstance(action, PickSeat):
        spaces = teleport_targets(board, [Kind.CONTROL_TOWER])
        t.ask(Label.TOWER_SPACE, seat, value=action.seat, spaces=spaces)
    elif label is Label.TOWER_SPACE and isinstance(action, PickSpace):
        t.emit("control_tower", seat=seat, target=prompt.value, to=action.space)
        arrive(t, prompt.value, action.space, False, False, "control_tower")
    elif label is Label.DISSATISFIED and contract is not None:
        t.return_contract(seat, contract.index, "dissatisfied_customer")
    elif label is Label.RACK_LIMIT and isinstance(action, PickCar):
        t.sell_car(seat, action.car, "rack_limit")
        t.then(Task(Op.RACK_CHECK, seat))
    elif label is Label.RAISE_CASH:
        _raise_cash(t, prompt, action)
    elif not isinstance(action, Pass):  # a pass declines an optional effect: nothing happens
        # `legal.py` offered an action no rule answers: an engine defect, never a bot's fault.
        raise AssertionError(f"no rule answers {label.value} with {action!r}")


def _raise_cash(t: Table, prompt: Prompt, action: Action) -> None:
    seat = prompt.seat
    if isinstance(action, PickCar):
        t.sell_car(seat, action.car, "raise_cash")
    elif isinstance(action, PickContract):
        contract = t.board.contract(action.contract)
        assert contract is not None
        price = t.board.round_down(contract.price * t.settings.contract_sale_percent // 100)
        t.return_contract(seat, contract.index, "raise_cash")
        t.money[seat] += price
        t.emit("contract_sold", seat=seat, contract=contract.id, price=price)
    t.then(Task(Op.DEBT, seat, other=prompt.space, amount=prompt.value))
