"""The legal actions of every Double Crossing decision, and the eligibility rules they share."""

from __future__ import annotations

from collections.abc import Sequence

from engines.api import ListedSpace, Seat
from engines.crossing.data import CARS, CREWS, Board, Contract, Crew, Kind
from engines.crossing.state import CrewMode, CrossingState, Label, Player
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

RAILROAD = CREWS.index(Crew.RAILROAD_CREW)
VILLAIN = CREWS.index(Crew.VILLAIN)
ENGINEER = CREWS.index(Crew.ENGINEER)
STOP = CREWS.index(Crew.STOP)


def has_cars(rack: Sequence[int], contract: Contract) -> bool:
    """Whether a rack holds every car a contract needs."""
    return all(have >= need for have, need in zip(rack, contract.cars, strict=True))


def half_price(board: Board, price: int) -> int:
    """Half a price, rounded down to the smallest banknote (CONNECTIONS)."""
    return board.round_down(price // 2)


def trade_options(
    board: Board, stacks: Sequence[Sequence[int]], space: int, rack: Sequence[int], money: int
) -> list[int]:
    """The contracts below this TRADE space that the rack and the purse can fulfil."""
    out = []
    for company in board.spaces[space].companies:
        stack = stacks[next(i for i, (cid, _) in enumerate(board.companies) if cid == company)]
        for index in stack:
            contract = board.contracts[index]
            if contract.price <= money and has_cars(rack, contract):
                out.append(index)
    return out


def connections_options(
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


def teleport_targets(board: Board, exclude: Sequence[Kind]) -> tuple[int, ...]:
    """The spaces a locomotive may be sent to (never START, never the excluded kinds)."""
    banned = {Kind.START, *exclude}
    return tuple(s.index for s in board.spaces if s.kind not in banned)


def plan_actions(
    board: Board, players: Sequence[Player], seat: Seat, cards_left: int
) -> list[Roll | BuyCards]:
    """What the active seat may declare before rolling; rolling with no cards comes first."""
    me = players[seat]
    rr = me.hand[RAILROAD]
    at_start = me.position == board.start
    modes = [CrewMode.NONE]
    if rr >= 1:
        modes.append(CrewMode.SLOW)
    if rr >= 1 and not at_start:
        modes.append(CrewMode.REVERSE)
    if rr >= 2 and not at_start:
        modes.append(CrewMode.SLOW_REVERSE)
    victims: list[int | None] = [None]
    if me.hand[VILLAIN]:
        # 「其他任一玩家」: any other player, START or not; one with no car has none to drop.
        victims += [s for s, p in enumerate(players) if s != seat and sum(p.rack) > 0]
    engineer = [False, True] if me.hand[ENGINEER] else [False]
    out: list[Roll | BuyCards] = [Roll(m, v, e) for m in modes for v in victims for e in engineer]
    if me.money >= board.crew_card_price and cards_left:
        out += [BuyCards(v) for v in victims]
    return out


def _cars(player: Player) -> list[Action]:
    return [PickCar(car) for i, car in enumerate(CARS) if player.rack[i]]


def _contracts(board: Board, indices: Sequence[int]) -> list[Action]:
    return [PickContract(board.contracts[i].id) for i in indices]


def legal_actions(state: CrossingState, seat: Seat) -> ListedSpace[Action]:
    """The legal actions of `seat` at the state's decision; the first is the default."""
    prompt = state.prompt
    if prompt is None or seat not in prompt.seats:
        raise ValueError(f"seat {seat} is not deciding now")
    board = state.board
    me = state.players[seat]
    about = state.players[prompt.seat]
    label = prompt.label
    actions: list[Action]
    default = 0
    if label is Label.DECLARE and seat != prompt.seat:
        actions = [Pass(), PlayStop()] if me.hand[STOP] else [Pass()]
    elif label is Label.DECLARE:
        left = sum(len(p) for p in state.piles) + sum(state.discard)
        actions = list(plan_actions(board, state.players, seat, left))
    elif label in (Label.VILLAIN_CAR, Label.DERAIL_CAR, Label.RACK_LIMIT):
        actions = _cars(about)
    elif label is Label.DISCARD:
        actions = [Discard(card) for i, card in enumerate(CREWS) if me.hand[i]]
    elif label is Label.ROUNDHOUSE:  # 「可將…移至」: may move, so staying is a choice
        actions = [Pass(), *(PickSpace(s) for s in prompt.spaces)]
    elif label in (Label.ROUTE, Label.TOWER_SPACE):
        actions = [PickSpace(s) for s in prompt.spaces]
        if label is Label.TOWER_SPACE:
            here = state.players[prompt.value].position
            default = prompt.spaces.index(here) if here in prompt.spaces else 0
    elif label is Label.BUY_CREW:
        actions = [Buy(n) for n in range(prompt.value + 1)]
    elif label is Label.YARD:
        actions = [Pass(), BuyCar()]
    elif label is Label.TRADE:
        found = trade_options(board, state.stacks, prompt.space, me.rack, me.money)
        actions = [Pass(), *_contracts(board, found)]
    elif label is Label.CONNECTIONS:
        found = connections_options(
            board, state.stacks, me.rack, me.money, state.settings.connections_cars
        )
        actions = [Pass(), *_contracts(board, found)]
    elif label is Label.DOUBLE_CROSS:  # 「可…拿取」: may take, so declining is a choice
        others = [s for s in range(len(state.players)) if s != seat]
        taken = _contracts(board, [i for s in others for i in state.players[s].contracts])
        actions = [Pass(), *taken]
    elif label is Label.TRAIN_SHOP:  # 「可擲1顆骰子」: may roll
        actions = [Accept(), Pass()]
    elif label is Label.TOWER_TARGET:
        actions = [Pass(), *(PickSeat(s) for s in range(len(state.players)) if s != seat)]
    elif label is Label.DISSATISFIED:
        actions = _contracts(board, me.contracts)
    else:  # RAISE_CASH: 「須以半價賣出車輛或契約」, cars or contracts, the player's choice
        actions = [*_cars(me), *_contracts(board, me.contracts)]
    return ListedSpace(tuple(actions), default)
