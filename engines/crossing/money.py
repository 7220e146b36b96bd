"""Paying what is owed: the rack limit (General rule 5), debts and raising cash (rule 6)."""

from __future__ import annotations

from engines.api import ListedSpace, Seat
from engines.crossing.actions import Action, PickCar, PickContract
from engines.crossing.contracts import return_contract
from engines.crossing.decisions import listed, pick_cars, pick_contracts, unanswered
from engines.crossing.members import DEBT, RACK_CHECK, RACK_LIMIT, RAISE_CASH
from engines.crossing.records import new_task
from engines.crossing.state import CrossingState, Prompt, Task
from engines.crossing.work import Work


# -- the rack limit -----------------------------------------------------------------------------
def rack_check(w: Work, task: Task) -> None:
    """A rack over its limit sells a car of the owner's choice back at half price."""
    if w.cars(task.seat) > w.board.rack:
        w.ask(RACK_LIMIT, task.seat)


def rack_limit_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """The car types of the rack."""
    return listed(pick_cars(state.players[prompt.seat].rack))


def answer_rack_limit(w: Work, prompt: Prompt, action: Action) -> None:
    """Sell the chosen car to its yard; check the rack again."""
    if isinstance(action, PickCar):
        seat = prompt.seats[0]
        w.sell_car(seat, action.car, "rack_limit")
        w.then(new_task(RACK_CHECK, seat))
    else:
        unanswered(prompt, action)


# -- debts --------------------------------------------------------------------------------------
def debt(w: Work, task: Task) -> None:
    """Pay in full if possible; else sell cars or contracts first; with nothing left to sell,
    pay what there is and the rest is forgiven (D15, D20)."""
    payer, amount = task.seat, task.amount
    payee = None if task.other < 0 else task.other
    if w.money[payer] >= amount:
        if amount:
            w.pay(payer, amount, payee, "debt")
    elif w.cars(payer) or w.contracts[payer]:
        w.ask(RAISE_CASH, payer, value=amount, space=task.other)
    else:
        paid = w.money[payer]
        if paid:
            w.pay(payer, paid, payee, "debt")
        w.emit("debt_forgiven", seat=payer, amount=amount - paid)


def raise_cash_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """「須以半價賣出車輛或契約」: cars or contracts, the debtor's choice."""
    me = state.players[seat]
    return listed([*pick_cars(me.rack), *pick_contracts(state.board, me.contracts)])


def answer_raise_cash(w: Work, prompt: Prompt, action: Action) -> None:
    """Sell the car (half price) or the contract (D14's percent); then try the debt again."""
    seat = prompt.seat
    if isinstance(action, PickCar):
        w.sell_car(seat, action.car, "raise_cash")
    elif isinstance(action, PickContract):
        contract = w.board.contract(action.contract)
        assert contract is not None
        price = w.board.round_down(contract.price * w.settings.contract_sale_percent // 100)
        return_contract(w, seat, contract.index, "raise_cash")
        w.add_money(seat, price)
        w.emit("contract_sold", seat=seat, contract=contract.id, price=price)
    w.then(new_task(DEBT, seat, other=prompt.space, amount=prompt.value))
