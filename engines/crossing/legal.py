"""Who decides now, and the legal actions of each decision from the rule that asked it."""

from __future__ import annotations

from typing import Final

from engines.api import Decision, ListedSpace, Seat
from engines.crossing import cards, contracts, money, moves, spaces
from engines.crossing.actions import Action
from engines.crossing.decisions import Options
from engines.crossing.state import CrossingState, Label
from engines.frozen import new_decision, one_seat

OPTIONS: Final[dict[Label, Options]] = {
    Label.DECLARE: cards.declare_options,
    Label.VILLAIN_CAR: cards.villain_car_options,
    Label.DISCARD: moves.discard_options,
    Label.TRAIN_SHOP: spaces.train_shop_options,
    Label.ROUTE: moves.route_options,
    Label.BUY_CREW: spaces.buy_crew_options,
    Label.YARD: spaces.yard_options,
    Label.TRADE: contracts.trade_options,
    Label.CONNECTIONS: contracts.connections_options,
    Label.DERAIL_CAR: spaces.derail_car_options,
    Label.DOUBLE_CROSS: contracts.double_cross_options,
    Label.ROUNDHOUSE: spaces.roundhouse_options,
    Label.TOWER_TARGET: spaces.tower_target_options,
    Label.TOWER_SPACE: spaces.tower_space_options,
    Label.DISSATISFIED: contracts.dissatisfied_options,
    Label.RACK_LIMIT: money.rack_limit_options,
    Label.RAISE_CASH: money.raise_cash_options,
}
"""The legal actions of each decision, from the rule that asks it."""
assert set(OPTIONS) == set(Label)


def legal_actions(state: CrossingState, seat: Seat) -> ListedSpace[Action]:
    """The legal actions of `seat` at the state's decision; the first is the default."""
    prompt = state.prompt
    if prompt is None or seat not in prompt.seats:
        raise ValueError(f"seat {seat} is not deciding now")
    return OPTIONS[prompt.label](state, prompt, seat)


def decision(state: CrossingState) -> Decision | None:
    """The waiting decision, or None once the game is over."""
    prompt = state.prompt
    if prompt is None:
        return None
    seats = prompt.seats
    # (`_value_`: an enum's `.value` is a slow descriptor)
    deciding = one_seat(seats[0]) if len(seats) == 1 else frozenset(seats)
    return new_decision(state.number, deciding, prompt.label._value_)
