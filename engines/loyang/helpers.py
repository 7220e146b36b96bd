"""Helper cards: which uses are legal now and what each effect does, lantern targets included."""

from __future__ import annotations

from engines.api import Seat
from engines.loyang import board
from engines.loyang.actions import Action, UseHelper
from engines.loyang.model import Crop, EffectKind, add, add_all, has_all
from engines.loyang.state import (
    DUMMY,
    Bonus,
    Casual,
    LoyangState,
    Player,
    Regular,
    Stall,
    Turn,
    evolve,
    start_round_for,
    with_discards,
    with_player,
    with_turn,
)


def targets(state: LoyangState, seat: Seat) -> tuple[int, ...]:
    """Whom a lantern helper may affect: the solo opponent, the paired opponent, or any other."""
    if state.config.solo:
        return (DUMMY,)
    if state.partners:
        return (state.partners[seat],)
    return tuple(s for s in range(len(state.players)) if s != seat)


def stalls_of(state: LoyangState, owner: int) -> tuple[Stall, ...]:
    """The market stalls of a seat or of the solo opponent."""
    if owner == DUMMY:
        return state.dummy.stalls if state.dummy else ()
    return state.players[owner].stalls


def regulars_of(state: LoyangState, owner: int) -> tuple[Regular, ...]:
    """The regular customers of a seat or of the solo opponent."""
    if owner == DUMMY:
        return state.dummy.regulars if state.dummy else ()
    return state.players[owner].regulars


def casuals_of(state: LoyangState, owner: int) -> tuple[Casual, ...]:
    """The casual customers of a seat or of the solo opponent."""
    if owner == DUMMY:
        return state.dummy.casuals if state.dummy else ()
    return state.players[owner].casuals


def helper_uses(state: LoyangState, turn: Turn, player: Player, card: str) -> list[Action]:
    """Every legal use of helper `card` now (its effect must be possible and affordable)."""
    effect = board.helper_def(card).effect
    kind = effect.kind
    if kind in (EffectKind.SHOP_DISCOUNT, EffectKind.GAIN_CASH, EffectKind.TAKE_CROPS):
        return [UseHelper(card)]
    if kind is EffectKind.SALES_BONUS:
        return [UseHelper(card, bonus=Bonus.REGULAR), UseHelper(card, bonus=Bonus.CASUAL)]
    if kind is EffectKind.TAKE_CROP_CHOICE:
        return [UseHelper(card, crop=c) for c in Crop]
    if kind is EffectKind.UPGRADE_STOREHOUSE:
        return [] if player.upgraded else [UseHelper(card)]
    out: list[Action] = []
    cart = player.cart
    for target in targets(state, turn.seat):
        if kind is EffectKind.STALL_BUY and player.cash >= effect.amount:
            for stall in stalls_of(state, target):
                out += [
                    UseHelper(card, target=target, stall=stall.card, crop=c)
                    for c in Crop
                    if stall.goods[c]
                ]
        elif kind is EffectKind.STALL_TRADE:
            for stall in stalls_of(state, target):
                cost = board.stall_def(stall.card).cost
                for c in Crop:
                    if stall.goods[c]:
                        out += [
                            UseHelper(card, target=target, stall=stall.card, crop=c, give=g)
                            for g in board.gives(cart, cost[c])
                        ]
        elif kind is EffectKind.DELIVER_OTHER:
            for regular in regulars_of(state, target):
                if board.may_deliver(regular, state.round, state.config.regular_max) and has_all(
                    cart, board.regular_def(regular.card).crops
                ):
                    out.append(UseHelper(card, target=target, customer=regular.card))
        elif kind is EffectKind.SERVE_OTHER:
            for casual in casuals_of(state, target):
                if has_all(cart, board.casual_def(casual.card).crops):
                    out.append(UseHelper(card, target=target, customer=casual.card))
    return out


def use_helper(
    state: LoyangState, seat: Seat, turn: Turn, player: Player, action: UseHelper
) -> LoyangState:
    """Carry out a helper's effect, then discard it (placing the card behind it, if any)."""
    effect = board.helper_def(action.card).effect
    kind = effect.kind
    if kind is EffectKind.SHOP_DISCOUNT:
        state = with_turn(state, evolve(turn, discount=turn.discount + effect.amount))
    elif kind is EffectKind.SALES_BONUS:
        if action.bonus is Bonus.REGULAR:
            turn = evolve(turn, bonus_regular=turn.bonus_regular + effect.amount)
        else:
            turn = evolve(turn, bonus_casual=turn.bonus_casual + effect.amount)
        state = with_turn(state, turn)
    elif kind is EffectKind.GAIN_CASH:
        state = with_player(state, seat, evolve(player, cash=player.cash + effect.amount))
    elif kind is EffectKind.TAKE_CROPS:
        state = with_player(state, seat, evolve(player, cart=add_all(player.cart, effect.crops)))
    elif kind is EffectKind.TAKE_CROP_CHOICE:
        assert action.crop is not None
        state = with_player(state, seat, evolve(player, cart=add(player.cart, action.crop)))
    elif kind is EffectKind.UPGRADE_STOREHOUSE:
        state = with_player(state, seat, evolve(player, upgraded=True))
    elif kind in (EffectKind.STALL_BUY, EffectKind.STALL_TRADE):
        state = _take_from_other(state, seat, action, effect.amount, kind is EffectKind.STALL_BUY)
    elif kind is EffectKind.DELIVER_OTHER:
        assert action.target is not None and action.customer is not None
        state = deliver(state, seat, action.target, action.customer, 0)
    else:
        assert action.target is not None and action.customer is not None
        state = _serve_other(state, seat, action.target, action.customer)
    player = state.players[seat]
    index = next(i for i, h in enumerate(player.helpers) if h.card == action.card)
    player, discards = board.remove_helper(player, index, start_round_for(state, seat))
    return with_discards(with_player(state, seat, player), discards)


def _take_from_other(
    state: LoyangState, seat: Seat, action: UseHelper, price: int, buying: bool
) -> LoyangState:
    """Market woman (pay the owner) or Trader (give crops) at another player's stall."""
    owner, crop = action.target, action.crop
    assert owner is not None and crop is not None
    discards: tuple[str, ...]
    if owner == DUMMY:
        assert state.dummy is not None
        index = next(i for i, s in enumerate(state.dummy.stalls) if s.card == action.stall)
        dummy, discards = board.dummy_after_take(state.dummy, index, crop)
        state = evolve(state, dummy=dummy)
    else:
        target = state.players[owner]
        index = next(i for i, s in enumerate(target.stalls) if s.card == action.stall)
        target, discards = board.stall_after_take(
            target, index, crop, start_round_for(state, owner)
        )
        if buying:
            target = evolve(target, cash=target.cash + price)
        state = with_player(state, owner, target)
    player = state.players[seat]
    cart = add(add_all(player.cart, action.give, -1), crop)
    player = evolve(player, cart=cart, cash=player.cash - (price if buying else 0))
    return with_discards(with_player(state, seat, player), discards)


def _serve_other(state: LoyangState, seat: Seat, owner: int, customer: str) -> LoyangState:
    """Tout: serve another player's casual customer at its printed value."""
    definition = board.casual_def(customer)
    discards: tuple[str, ...] = (customer,)
    if owner == DUMMY:
        assert state.dummy is not None
        casuals = tuple(c for c in state.dummy.casuals if c.card != customer)
        state = evolve(state, dummy=evolve(state.dummy, casuals=casuals))
    else:
        target = state.players[owner]
        index = next(i for i, c in enumerate(target.casuals) if c.card == customer)
        target, discards = board.remove_casual(target, index, start_round_for(state, owner))
        state = with_player(state, owner, target)
    player = state.players[seat]
    player = evolve(
        player,
        cash=player.cash + definition.payout,
        cart=add_all(player.cart, definition.crops, -1),
    )
    return with_discards(with_player(state, seat, player), discards)


def deliver(state: LoyangState, seat: Seat, owner: int, customer: str, bonus: int) -> LoyangState:
    """`seat` delivers to `owner`'s regular customer and takes the row's coins (plus `bonus`)."""
    definition = board.regular_def(customer)
    discards: tuple[str, ...] = ()
    if owner == DUMMY:
        assert state.dummy is not None
        regulars = list(state.dummy.regulars)
        index = next(i for i, r in enumerate(regulars) if r.card == customer)
        coins = definition.rows[regulars[index].rows] + bonus
        regulars[index] = board.deliver_row(regulars[index], state.round)
        if regulars[index].rows >= len(definition.rows):
            discards = (regulars.pop(index).card,)
        state = evolve(state, dummy=evolve(state.dummy, regulars=tuple(regulars)))
    else:
        target = state.players[owner]
        index = next(i for i, r in enumerate(target.regulars) if r.card == customer)
        coins = definition.rows[target.regulars[index].rows] + bonus
        regulars = list(target.regulars)
        regulars[index] = board.deliver_row(regulars[index], state.round)
        target = evolve(target, regulars=tuple(regulars))
        if regulars[index].rows >= len(definition.rows):
            target, discards = board.remove_regular(target, index, start_round_for(state, owner))
        state = with_player(state, owner, target)
    player = state.players[seat]
    player = evolve(
        player, cash=player.cash + coins, cart=add_all(player.cart, definition.crops, -1)
    )
    return with_discards(with_player(state, seat, player), discards)
