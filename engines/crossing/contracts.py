"""Contracts: TRADE, CONNECTIONS, DOUBLE CROSS and DISSATISFIED CUSTOMER, and moving contracts.

Each space's landing effect, its legal choices and its answer sit together here.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.api import ListedSpace, Seat
from engines.crossing.actions import Action, Pass, PickContract
from engines.crossing.cards import duel
from engines.crossing.components import Board, Contract
from engines.crossing.decisions import listed, pick_contracts, unanswered
from engines.crossing.members import CONNECTIONS, DISSATISFIED, DOUBLE_CROSS, TRADE
from engines.crossing.moves import rolls_double
from engines.crossing.state import CrossingState, Prompt, Task
from engines.crossing.work import Work, put


def has_cars(rack: Sequence[int], contract: Contract) -> bool:
    """Whether a rack holds every car a contract needs."""
    return all(have >= need for have, need in zip(rack, contract.cars, strict=True))


def company_index(board: Board, company: str) -> int:
    """The position of `company` in the board's list (and of its stack)."""
    return next(i for i, (cid, _) in enumerate(board.companies) if cid == company)


def take_contract(w: Work, seat: Seat, index: int, price: int, with_cars: bool, why: str) -> None:
    """Pay for a contract lying below its TRADE space, return its cars, and keep it."""
    contract = w.board.contracts[index]
    company = company_index(w.board, contract.company)
    stack = w.stacks[company]
    at = stack.index(index)
    w.stacks = put(w.stacks, company, stack[:at] + stack[at + 1 :])
    w.add_money(seat, -price)
    if with_cars:
        for i, n in enumerate(contract.cars):
            w.add_cars(seat, i, -n)
            w.yards = put(w.yards, i, w.yards[i] + n)
    w.gain_contract(seat, index)
    w.emit("contract_taken", seat=seat, contract=contract.id, price=price, why=why)


def return_contract(w: Work, seat: Seat, index: int, why: str) -> None:
    """Put one of `seat`'s contracts back below its TRADE space."""
    contract = w.board.contracts[index]
    w.lose_contract(seat, index)
    company = company_index(w.board, contract.company)
    w.stacks = put(w.stacks, company, (*w.stacks[company], index))
    w.emit("contract_returned", seat=seat, contract=contract.id, why=why)


def _chosen(w: Work, action: Action) -> Contract | None:
    return w.board.contract(action.contract) if isinstance(action, PickContract) else None


# -- TRADE --------------------------------------------------------------------------------------
def tradeable(
    board: Board, stacks: Sequence[Sequence[int]], space: int, rack: Sequence[int], money: int
) -> list[int]:
    """The contracts below this TRADE space that the rack and the purse can fulfil."""
    out = []
    for company in board.spaces[space].companies:
        for index in stacks[company_index(board, company)]:
            contract = board.contracts[index]
            if contract.price <= money and has_cars(rack, contract):
                out.append(index)
    return out


def trade(w: Work, task: Task) -> None:
    """TRADE: offer the contracts of this space (again after each, up to the per-visit limit)."""
    ask_trade(w, task.seat, w.position[task.seat], 0)


def ask_trade(w: Work, seat: Seat, space: int, done: int) -> None:
    """Offer the contracts of a TRADE space, while the per-visit limit allows."""
    if done >= w.board.contracts_per_visit:
        return
    if tradeable(w.board, w.stacks, space, w.rack[seat], w.money[seat]):
        w.ask(TRADE, seat, value=done, space=space)


def trade_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Stop trading, or fulfil one of the contracts the seat can."""
    me = state.players[seat]
    found = tradeable(state.board, state.stacks, prompt.space, me.rack, me.money)
    return listed([Pass(), *pick_contracts(state.board, found)])


def answer_trade(w: Work, prompt: Prompt, action: Action) -> None:
    """Pay the price, return the cars, keep the contract; then offer the next one."""
    contract, seat = _chosen(w, action), prompt.seats[0]
    if contract is None:
        unanswered(prompt, action)
        return
    take_contract(w, seat, contract.index, contract.price, True, "trade")
    ask_trade(w, seat, prompt.space, prompt.value + 1)


# -- CONNECTIONS --------------------------------------------------------------------------------
def half_price(board: Board, price: int) -> int:
    """Half a price, rounded down to the smallest banknote (CONNECTIONS)."""
    return board.round_down(price // 2)


def buyable_at_connections(
    board: Board, stacks: Sequence[Sequence[int]], rack: Sequence[int], money: int, cars: bool
) -> list[int]:
    """The contracts lying at any TRADE space that can be bought at half price."""
    out = []
    for stack in stacks:
        for index in stack:
            contract = board.contracts[index]
            if half_price(board, contract.price) <= money and (
                not cars or has_cars(rack, contract)
            ):
                out.append(index)
    return out


def connections(w: Work, task: Task) -> None:
    """CONNECTIONS: offer any contract lying at any TRADE space at half price."""
    seat, cars = task.seat, w.settings.connections_cars
    if buyable_at_connections(w.board, w.stacks, w.rack[seat], w.money[seat], cars):
        w.ask(CONNECTIONS, seat)


def connections_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Buy nothing, or one contract the seat can afford (with its cars, by option)."""
    me = state.players[seat]
    cars = state.settings.connections_cars
    found = buyable_at_connections(state.board, state.stacks, me.rack, me.money, cars)
    return listed([Pass(), *pick_contracts(state.board, found)])


def answer_connections(w: Work, prompt: Prompt, action: Action) -> None:
    """Buy the contract at half price (returning its cars only by option)."""
    contract = _chosen(w, action)
    if contract is None:
        unanswered(prompt, action)
        return
    price = half_price(w.board, contract.price)
    cars = w.settings.connections_cars
    take_contract(w, prompt.seats[0], contract.index, price, cars, "connections")


# -- DOUBLE CROSS -------------------------------------------------------------------------------
def double_cross(w: Work, task: Task) -> None:
    """DOUBLE CROSS: the seat may try to take another seat's contract."""
    seat = task.seat
    if any(w.contracts[o] for o in w.left_of(seat)):
        w.ask(DOUBLE_CROSS, seat)
    else:
        w.emit("no_effect", seat=seat, why="nobody else holds a contract")


def double_cross_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """「可…拿取」: may take, so declining is a choice; else any other seat's contract."""
    others = [s for s in range(len(state.players)) if s != seat]
    taken = pick_contracts(state.board, [i for s in others for i in state.players[s].contracts])
    return listed([Pass(), *taken])


def answer_double_cross(w: Work, prompt: Prompt, action: Action) -> None:
    """Duel the owner for the contract; the taker keeps it only by winning."""
    contract, seat = _chosen(w, action), prompt.seats[0]
    if contract is None:
        unanswered(prompt, action)
        return
    owner = next(s for s in range(w.seats) if contract.index in w.contracts[s])
    w.emit("double_cross", seat=seat, owner=owner, contract=contract.id)
    if duel(w, seat, owner, "double_cross") == seat:
        w.lose_contract(owner, contract.index)
        w.gain_contract(seat, contract.index)
        w.emit("contract_moved", seat=seat, owner=owner, contract=contract.id)


# -- DISSATISFIED CUSTOMER ----------------------------------------------------------------------
def dissatisfied(w: Work, task: Task) -> None:
    """Roll for a double; without one, give a contract back. Every outcome ends the turn."""
    seat = task.seat
    if task.own:  # every outcome ends the turn: no extra turn, no Engineer
        w.set_turn(ends=True)
    held = w.contracts[seat]
    if not held:
        w.emit("no_effect", seat=seat, why="no contract to lose")
    elif rolls_double(w, seat, "dissatisfied_customer"):
        w.emit("customer_satisfied", seat=seat)
    elif len(held) == 1:
        return_contract(w, seat, held[0], "dissatisfied_customer")
    else:
        w.ask(DISSATISFIED, seat)


def dissatisfied_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Any of the seat's contracts."""
    return listed(pick_contracts(state.board, state.players[seat].contracts))


def answer_dissatisfied(w: Work, prompt: Prompt, action: Action) -> None:
    """Return the chosen contract below its TRADE space."""
    contract = _chosen(w, action)
    if contract is None:
        unanswered(prompt, action)
        return
    return_contract(w, prompt.seats[0], contract.index, "dissatisfied_customer")
