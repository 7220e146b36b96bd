"""Who decides now and the legal actions of each decision label, built from the frozen state."""

from __future__ import annotations

import functools

from engines.api import Decision, Seat
from engines.frozen import new_decision, one_seat
from engines.loyang import board
from engines.loyang.actions import (
    Action,
    Advance,
    Buy,
    BuyPair,
    Deliver,
    Dismiss,
    EndTurn,
    FinishScoring,
    FinishStoring,
    GridBuy,
    Keep,
    Loan,
    PickOpponent,
    Play,
    Reveal,
    Sell,
    Serve,
    SetupSow,
    Sow,
    Store,
    Take,
    Trade,
    Upgrade,
    UseHelper,
)
from engines.loyang.board import K
from engines.loyang.cards import CROPS, Counts, Crop
from engines.loyang.counts import has_all
from engines.loyang.data import DATA
from engines.loyang.members import (
    ACT,
    CARD,
    CASUAL,
    DELIVER_OTHER,
    GAIN_CASH,
    KEEP,
    OPPONENT,
    OVER,
    REGULAR,
    SALES_BONUS,
    SERVE_OTHER,
    SETUP,
    SHOP_DISCOUNT,
    STALL_BUY,
    STALL_TRADE,
    STORE,
    TAKE_CROP_CHOICE,
    TAKE_CROPS,
    UPGRADE_STOREHOUSE,
)
from engines.loyang.state import (
    DUMMY,
    Casual,
    LoyangState,
    Player,
    Regular,
    Stall,
    Turn,
    turn_of,
)
from engines.loyang.work import Board

# Actions are immutable values and the same ones are offered decision after decision: they are
# built once and shared (building a dozen dataclasses per decision was a visible share of it;
# sharing also lets an offered action be found by identity when it is checked).
_END_TURN, _BUY_PAIR, _UPGRADE, _LOAN = EndTurn(), BuyPair(), Upgrade(), Loan()
_REVEAL, _FINISH_STORING, _FINISH_SCORING = Reveal(), FinishStoring(), FinishScoring()
_BUY = tuple(Buy(c) for c in CROPS)
_SELL = tuple(Sell(c) for c in CROPS)
_STORE = tuple(Store(c) for c in CROPS)
_sow = functools.cache(Sow)
_trade = functools.cache(Trade)
_play = functools.cache(Play)
_take = functools.cache(Take)
_keep = functools.cache(Keep)
_advance = functools.cache(Advance)


# The sowings and trades on offer depend on a few small values alone, which recur turn after
# turn and match after match: each list is built once (a cache hit costs a hash of its key).
@functools.lru_cache(maxsize=4096)
def _sows(field: str, allowed: frozenset[Crop], kinds: tuple[Crop, ...]) -> tuple[Action, ...]:
    """Sowing each crop of `kinds` (those on the cart) that the empty field allows."""
    return tuple([_sow(field, c) for c in kinds if c in allowed])


@functools.lru_cache(maxsize=4096)
def _buys(cash: int, discount: int, stock: Counts | None) -> tuple[Action, ...]:
    """Buying each crop `cash` affords (with a strict stock, `stock` must hold it)."""
    affords = [c for c in CROPS if max(0, DATA.buy[c] - discount) <= cash]
    return tuple([_BUY[c] for c in affords if stock is None or stock[c] > 0])


_DEAREST = max(DATA.buy)
"""The highest buy price: any cash from it up affords every crop (`_buys` keys on less)."""


@functools.lru_cache(maxsize=8192)
def _trades(stall: str, goods: Counts, cart: Counts) -> tuple[Action, ...]:
    """Taking each crop left on `stall` for each way the cart can pay its price in crops."""
    cost = board.stall_def(stall).cost
    return tuple(
        [_trade(stall, c, give) for c in CROPS if goods[c] for give in board.gives(cart, cost[c])]
    )


_deliver = functools.cache(Deliver)
_serve = functools.cache(Serve)
_dismiss = functools.cache(Dismiss)
_use = functools.cache(UseHelper)


def decision(state: LoyangState) -> Decision | None:
    """Who must answer now and the decision's label; None once the match is over."""
    phase = state.phase
    if phase is OVER:
        return None
    if phase is SETUP:
        return new_decision(state.number, one_seat(state.queue[0]), "setup_sow")
    if phase is CARD:
        owing = [s for s, p in enumerate(state.players) if p.due]
        if owing:
            return new_decision(state.number, one_seat(owing[0]), "pay")
        if state.config.solo:
            return new_decision(state.number, one_seat(0), "grid")
        return new_decision(state.number, one_seat(state.current), "card")
    if phase is OPPONENT:
        return new_decision(state.number, one_seat(state.start), "opponent")
    turns = state.turns
    if len(turns) == 1:  # the common case, without the sets (`_value_`: `.value` is slow)
        (t,) = turns
        label = "pay" if state.players[t.seat].due else t.stage._value_
        return new_decision(state.number, one_seat(t.seat), label)
    labels = {"pay" if state.players[t.seat].due else t.stage.value for t in state.turns}
    label = labels.pop() if len(labels) == 1 else "action"
    return new_decision(state.number, frozenset(t.seat for t in state.turns), label)


def actions(state: LoyangState, seat: Seat) -> list[Action]:
    """The legal actions of `seat`, a deciding seat; the first is the default."""
    phase = state.phase
    if phase is SETUP:
        return setup_actions(state, seat)
    if phase is OPPONENT:
        return opponent_choices(state)
    player = state.players[seat]
    if player.due > 0:
        return pay_actions(player, state.config.strict_stock)
    if phase is CARD:
        return card_actions(state, seat)
    turn = turn_of(state, seat)
    assert turn is not None
    if turn.stage is ACT:
        return act_actions(state, turn, player)
    if turn.stage is KEEP:
        return keep_actions(turn)
    if turn.stage is STORE:
        return store_actions(player)
    return score_actions(player)


# -- setup and the card phase ----------------------------------------------------------------


def setup_actions(state: LoyangState, seat: Seat) -> list[Action]:
    """Home-field crops this seat may buy: allowed, affordable, and sown by fewer than two."""
    sown = [p.fields[0].crop for p in state.players if p.fields and p.fields[0].crop is not None]
    player = state.players[seat]
    return [
        SetupSow(c)
        for c in sorted(DATA.home.allowed)
        if sown.count(c) < K.max_same_home_crop
        and DATA.buy[c] <= player.cash
        and (not state.config.strict_stock or player.shop[c] > 0)
    ]


def card_actions(state: LoyangState, seat: Seat) -> list[Action]:
    """The card-phase plays of `seat`: option A, option B, the 2-player reveal, the solo grid."""
    if state.config.solo:
        return list(grid_buys(state.grid, state.players[0].cash))
    hand = state.players[seat].hand
    may_reveal = state.config.two_player_rule and bool(state.deck)
    if not state.opened:
        return [*(_play(c) for c in hand), *([_REVEAL] if may_reveal else [])]
    last = sum(1 for p in state.players if p.hand) == 1
    out: list[Action] = []
    if len(hand) >= 2 and not last:
        out += [_play(c) for c in hand]
        if may_reveal:
            out.append(_REVEAL)
    out += [_take(c, h) for c in state.courtyard for h in hand]
    return out or [_play(c) for c in hand]  # an empty courtyard leaves only playing (research L18)


def grid_buys(grid: tuple[str | None, ...], cash: int) -> tuple[GridBuy, ...]:
    """The grid cards the solo player can afford (row 0 is free)."""
    cols = K.solo_grid_columns
    return tuple(
        GridBuy(i // cols, i % cols)
        for i, card in enumerate(grid)
        if card is not None and K.solo_row_costs[i // cols] <= cash
    )


def opponent_choices(state: LoyangState) -> list[Action]:
    """Paired variant: the seats without a start marker."""
    return [
        PickOpponent(s) for s in range(len(state.players)) if s not in (state.start, state.second)
    ]


# -- the action phase ------------------------------------------------------------------------


def pay_actions(player: Player, strict: bool) -> list[Action]:
    """Ways to raise owed money: sell a crop (cheapest first), a cash helper, or a loan."""
    out: list[Action] = [_SELL[c] for c in board.sellable(player, strict)]
    out += [
        _use(h.card) for h in player.helpers if board.helper_def(h.card).effect.kind is GAIN_CASH
    ]
    out.append(_LOAN)
    return out


def buy_price(turn: Turn, crop: Crop) -> int:
    """What buying `crop` costs now, after any pending helper discount."""
    return max(0, DATA.buy[crop] - turn.discount)


def cards_available(deck: tuple[str, ...], discard: tuple[str, ...], solo: bool) -> bool:
    """Whether an action card can be drawn (the solo game reshuffles only once)."""
    return bool(deck) or (not solo and bool(discard))


def act_actions(state: LoyangState, turn: Turn, player: Player) -> list[Action]:
    """Every step the seat can afford and carry out now, "end my turn" first.

    Actions A-G may be taken any number of times (「A~G項行動執行時皆不限次數」), so no step
    limit applies. None is needed to end a turn: every step spends something finite (a sale
    or purchase loses money on the round trip, a trade empties a stall, a helper, customer, sowing
    or pair is used up), so no position repeats; only voluntary loans (an option) can go on, and a
    random player ends such a turn with probability 1.
    """
    out: list[Action] = [_END_TURN]
    config = state.config
    cart, cash = player.cart, player.cash
    kinds = tuple([c for c in CROPS if cart[c]])
    for f in player.fields:
        if f.crop is None:
            out += _sows(f.id, f.allowed, kinds)
    shop = player.shop
    out += _buys(min(cash, _DEAREST), turn.discount, shop if config.strict_stock else None)
    if config.strict_stock:
        out += [_SELL[c] for c in kinds if shop[c] < DATA.shop_capacity[c]]
    else:
        out += [_SELL[c] for c in kinds]
    for stall in player.stalls:
        out += _trades(stall.card, stall.goods, cart)
    for regular in player.regulars:
        if board.may_deliver(regular, state.round, config.regular_max) and has_all(
            cart, board.regular_def(regular.card).crops
        ):
            out.append(_deliver(regular.card))
    for casual in player.casuals:
        if has_all(cart, board.casual_def(casual.card).crops):
            out.append(_serve(casual.card))
    for helper in player.helpers:
        out += helper_uses(state, turn, player, helper.card)
        out.append(_dismiss(helper.card))
    if (
        not turn.pair_bought
        and board.pair_price(player) <= cash
        and cards_available(state.deck, state.discard, config.solo)
    ):
        out.append(_BUY_PAIR)
    if not player.upgraded and cash >= K.storehouse_upgrade_cost:
        out.append(_UPGRADE)
    if config.voluntary_loans:
        out.append(_LOAN)
    return out


def keep_actions(turn: Turn) -> list[Action]:
    """What to keep of a drawn pair: nothing, one card, or both in either order.

    A kept field costs 2 coins whatever the cash in hand: what is missing becomes money due,
    raised by selling crops, a cash helper or a loan (「可立即透過銷售作物、幫手協助或辦理借款」).
    """
    drawn = turn.drawn
    options: list[tuple[str, ...]] = [()]
    options += [(c,) for c in drawn]
    if len(drawn) == 2:
        options += [drawn, (drawn[1], drawn[0])]
    return [_keep(o) for o in options]


def store_actions(player: Board) -> list[Action]:
    """Store 1 crop at a time up to the storehouse's capacity, upgrade it, or finish."""
    out: list[Action] = [_FINISH_STORING]
    if sum(player.store) < board.capacity(player):
        out += [_STORE[c] for c in CROPS if player.cart[c]]
    if not player.upgraded and player.cash >= K.storehouse_upgrade_cost:
        out.append(_UPGRADE)
    return out


def score_actions(player: Player) -> list[Action]:
    """Stay, or pay for 1, 2, ... steps on the Path (as many as the cash allows)."""
    steps = board.affordable_steps(player)
    return [_FINISH_SCORING, *(_advance(n) for n in range(1, steps + 1))]


# -- helpers ---------------------------------------------------------------------------------


def targets(state: LoyangState, seat: Seat) -> tuple[int, ...]:
    """Whom a lantern helper may affect: the solo opponent, the paired opponent, or any other."""
    if state.config.solo:
        return (DUMMY,)
    if state.partners:
        return (state.partners[seat],)
    return tuple(s for s in range(len(state.players)) if s != seat)


def _stalls_of(state: LoyangState, owner: int) -> tuple[Stall, ...]:
    if owner == DUMMY:
        return state.dummy.stalls if state.dummy else ()
    return state.players[owner].stalls


def _regulars_of(state: LoyangState, owner: int) -> tuple[Regular, ...]:
    if owner == DUMMY:
        return state.dummy.regulars if state.dummy else ()
    return state.players[owner].regulars


def _casuals_of(state: LoyangState, owner: int) -> tuple[Casual, ...]:
    if owner == DUMMY:
        return state.dummy.casuals if state.dummy else ()
    return state.players[owner].casuals


def helper_uses(state: LoyangState, turn: Turn, player: Player, card: str) -> list[Action]:
    """Every legal use of helper `card` now (its effect must be possible and affordable)."""
    effect = board.helper_def(card).effect
    kind = effect.kind
    if kind in (SHOP_DISCOUNT, GAIN_CASH, TAKE_CROPS):
        return [_use(card)]
    if kind is SALES_BONUS:
        return [_use(card, bonus=REGULAR), _use(card, bonus=CASUAL)]
    if kind is TAKE_CROP_CHOICE:
        return [_use(card, crop=c) for c in CROPS]
    if kind is UPGRADE_STOREHOUSE:
        return [] if player.upgraded else [_use(card)]
    out: list[Action] = []
    cart = player.cart
    for target in targets(state, turn.seat):
        if kind is STALL_BUY and player.cash >= effect.amount:
            for stall in _stalls_of(state, target):
                out += [
                    _use(card, target=target, stall=stall.card, crop=c)
                    for c in CROPS
                    if stall.goods[c]
                ]
        elif kind is STALL_TRADE:
            for stall in _stalls_of(state, target):
                cost = board.stall_def(stall.card).cost
                for c in CROPS:
                    if stall.goods[c]:
                        out += [
                            _use(card, target=target, stall=stall.card, crop=c, give=g)
                            for g in board.gives(cart, cost[c])
                        ]
        elif kind is DELIVER_OTHER:
            for regular in _regulars_of(state, target):
                if board.may_deliver(regular, state.round, state.config.regular_max) and has_all(
                    cart, board.regular_def(regular.card).crops
                ):
                    out.append(_use(card, target=target, customer=regular.card))
        elif kind is SERVE_OTHER:
            for casual in _casuals_of(state, target):
                if has_all(cart, board.casual_def(casual.card).crops):
                    out.append(_use(card, target=target, customer=casual.card))
    return out
