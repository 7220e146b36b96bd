"""Helper cards in play: what each effect does (lantern effects on another player's cards), and
the deliveries to regular customers that the Harvest helper and step D share."""

from __future__ import annotations

from dataclasses import replace

from engines.api import Seat
from engines.loyang import board
from engines.loyang.actions import UseHelper
from engines.loyang.counts import add, add_all, names
from engines.loyang.members import (
    DELIVER_OTHER,
    GAIN_CASH,
    REGULAR,
    SALES_BONUS,
    SHOP_DISCOUNT,
    STALL_BUY,
    STALL_TRADE,
    TAKE_CROP_CHOICE,
    TAKE_CROPS,
    UPGRADE_STOREHOUSE,
)
from engines.loyang.records import evolve_turn
from engines.loyang.state import DUMMY, Turn
from engines.loyang.work import Work


def use_helper(w: Work, seat: Seat, turn: Turn, action: UseHelper) -> None:
    """F: carry out a helper's effect, then discard it (placing the card behind it, if any)."""
    effect = board.helper_def(action.card).effect
    kind = effect.kind
    w.emit("helper", seat=seat, card=action.card)
    if kind is SHOP_DISCOUNT:
        w.set_turn(evolve_turn(turn, discount=turn.discount + effect.amount))
    elif kind is SALES_BONUS:
        if action.bonus is REGULAR:
            w.set_turn(evolve_turn(turn, bonus_regular=turn.bonus_regular + effect.amount))
        else:
            w.set_turn(evolve_turn(turn, bonus_casual=turn.bonus_casual + effect.amount))
    elif kind is GAIN_CASH:
        w.edit(seat).cash += effect.amount
    elif kind is TAKE_CROPS:
        player = w.edit(seat)
        player.cart = add_all(player.cart, effect.crops)
    elif kind is TAKE_CROP_CHOICE:
        assert action.crop is not None
        player = w.edit(seat)
        player.cart = add(player.cart, action.crop)
    elif kind is UPGRADE_STOREHOUSE:
        w.edit(seat).upgraded = True
    elif kind in (STALL_BUY, STALL_TRADE):
        take_from_other(w, seat, action, effect.amount, kind is STALL_BUY)
    elif kind is DELIVER_OTHER:
        assert action.target is not None and action.customer is not None
        deliver(w, seat, action.target, action.customer, 0)
    else:
        assert action.target is not None and action.customer is not None
        serve_other(w, seat, action.target, action.customer)
    player = w.edit(seat)
    index = next(i for i, h in enumerate(player.helpers) if h.card == action.card)
    w.discard_cards(board.remove_helper(player, index, w.start_round_for(seat)))


def take_from_other(w: Work, seat: Seat, action: UseHelper, price: int, buying: bool) -> None:
    """Market woman (pay the owner) or Trader (give crops) at another player's stall."""
    owner, crop = action.target, action.crop
    assert owner is not None and crop is not None and action.stall is not None
    discards: tuple[str, ...]
    if owner == DUMMY:
        assert w.dummy is not None
        index = next(i for i, s in enumerate(w.dummy.stalls) if s.card == action.stall)
        w.dummy, discards = board.dummy_after_take(w.dummy, index, crop)
    else:
        target = w.edit(owner)
        index = next(i for i, s in enumerate(target.stalls) if s.card == action.stall)
        discards = board.stall_after_take(target, index, crop, w.start_round_for(owner))
        if buying:
            target.cash += price
    player = w.edit(seat)
    player.cart = add(add_all(player.cart, action.give, -1), crop)
    if buying:
        player.cash -= price
    w.discard_cards(discards)
    w.emit(
        "trade",
        seat=seat,
        target=owner,
        card=action.stall,
        crop=crop.wire,
        crops=names(action.give),
        amount=price if buying else 0,
    )


def serve_other(w: Work, seat: Seat, owner: int, customer: str) -> None:
    """Tout: serve another player's casual customer at its printed value."""
    definition = board.casual_def(customer)
    discards: tuple[str, ...] = (customer,)
    if owner == DUMMY:
        assert w.dummy is not None
        casuals = tuple(c for c in w.dummy.casuals if c.card != customer)
        w.dummy = replace(w.dummy, casuals=casuals)
    else:
        target = w.edit(owner)
        index = next(i for i, c in enumerate(target.casuals) if c.card == customer)
        discards = board.remove_casual(target, index, w.start_round_for(owner))
    player = w.edit(seat)
    player.cash += definition.payout
    player.cart = add_all(player.cart, definition.crops, -1)
    w.discard_cards(discards)
    w.emit("serve", seat=seat, target=owner, card=customer, amount=definition.payout)


def deliver(w: Work, seat: Seat, owner: int, customer: str, bonus: int) -> None:
    """D: `seat` delivers to `owner`'s regular customer and takes the row's coins (+ `bonus`)."""
    definition = board.regular_def(customer)
    discards: tuple[str, ...] = ()
    if owner == DUMMY:
        assert w.dummy is not None
        regulars = list(w.dummy.regulars)
        index = next(i for i, r in enumerate(regulars) if r.card == customer)
        coins = definition.rows[regulars[index].rows] + bonus
        regulars[index] = board.deliver_row(regulars[index], w.round)
        if regulars[index].rows >= len(definition.rows):
            discards = (regulars.pop(index).card,)
        w.dummy = replace(w.dummy, regulars=tuple(regulars))
    else:
        target = w.edit(owner)
        index = next(i for i, r in enumerate(target.regulars) if r.card == customer)
        coins = definition.rows[target.regulars[index].rows] + bonus
        regulars = list(target.regulars)
        regulars[index] = board.deliver_row(regulars[index], w.round)
        target.regulars = tuple(regulars)
        if regulars[index].rows >= len(definition.rows):
            discards = board.remove_regular(target, index, w.start_round_for(owner))
    player = w.edit(seat)
    player.cash += coins
    player.cart = add_all(player.cart, definition.crops, -1)
    w.discard_cards(discards)
    w.emit("deliver", seat=seat, target=owner, card=customer, amount=coins)
