"""The action phase: one seat's steps A-G (sow, buy, sell, trade, deliver, serve, helpers, a card
pair), loans, the storehouse upgrade and raising money that is due."""

from __future__ import annotations

from engines.api import Seat
from engines.loyang import board, helper_cards, scoring
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
    Keep,
    Loan,
    Sell,
    Serve,
    Sow,
    Store,
    Trade,
    Upgrade,
    UseHelper,
)
from engines.loyang.board import K
from engines.loyang.counts import add, add_all, names
from engines.loyang.data import DATA
from engines.loyang.legal import buy_price
from engines.loyang.members import ACT, DONE, KEEP
from engines.loyang.records import evolve_turn
from engines.loyang.state import Turn
from engines.loyang.work import Work
from engines.rng import Rng


def apply(w: Work, seat: Seat, action: Action, rng: Rng) -> None:
    """Apply one legal action-phase step of `seat` and settle what follows automatically."""
    if w.players[seat].due > 0:
        pay(w, seat, action)
    else:
        turn = w.turn_of(seat)
        assert turn is not None
        if not isinstance(action, (EndTurn, FinishStoring, FinishScoring, Store, Advance)):
            turn = evolve_turn(turn, steps=turn.steps + 1)
            w.set_turn(turn)
        _step(w, seat, turn, action, rng)
    scoring.normalize(w, seat)


def pay(w: Work, seat: Seat, action: Action) -> None:
    """Raise owed money by one step (sell, cash helper or loan); pay once it is covered."""
    player = w.edit(seat)
    strict = w.config.strict_stock
    if isinstance(action, Sell):
        sell(w, seat, action)
    elif isinstance(action, Loan):
        borrow(w, seat)
    else:
        assert isinstance(action, UseHelper)
        amount = board.helper_def(action.card).effect.amount
        player.cash += amount
        w.emit("helper", seat=seat, card=action.card, amount=amount)
        index = next(i for i, h in enumerate(player.helpers) if h.card == action.card)
        w.discard_cards(board.remove_helper(player, index, w.start_round_for(seat)))
    board.settle(player, strict)


def borrow(w: Work, seat: Seat) -> None:
    """Take a loan: 5 coins now, a Path step back at the end."""
    player = w.edit(seat)
    player.loans += 1
    player.cash += K.loan_amount
    w.emit("loan", seat=seat, amount=K.loan_amount, count=player.loans)


def sow(w: Work, seat: Seat, action: Sow) -> None:
    """A: sow a crop from the cart on an empty field, filling it from the supply."""
    player = w.edit(seat)
    index = next(i for i, f in enumerate(player.fields) if f.id == action.field)
    board.sow(player, index, action.crop)
    w.emit("sow", seat=seat, field=action.field, crop=action.crop.wire)


def buy(w: Work, seat: Seat, turn: Turn, action: Buy) -> None:
    """B: buy 1 crop from your shop onto the cart (a pending helper discount applies once)."""
    player = w.edit(seat)
    price = buy_price(turn, action.crop)
    player.cash -= price
    player.cart = add(player.cart, action.crop)
    if player.shop[action.crop]:
        player.shop = add(player.shop, action.crop, -1)
    w.set_turn(evolve_turn(turn, discount=0))
    w.emit("buy", seat=seat, crop=action.crop.wire, amount=price)


def sell(w: Work, seat: Seat, action: Sell) -> None:
    """B: sell 1 crop from the cart to your shop."""
    board.sell(w.edit(seat), action.crop)
    w.emit("sell", seat=seat, crop=action.crop.wire, amount=DATA.sell[action.crop])


def trade(w: Work, seat: Seat, action: Trade) -> None:
    """C: give crops to the supply for 1 crop of your market stall; an empty stall is discarded."""
    player = w.edit(seat)
    index = next(i for i, s in enumerate(player.stalls) if s.card == action.stall)
    player.cart = add(add_all(player.cart, action.give, -1), action.crop)
    w.discard_cards(board.stall_after_take(player, index, action.crop, w.start_round_for(seat)))
    w.emit("trade", seat=seat, card=action.stall, crop=action.crop.wire, crops=names(action.give))


def serve(w: Work, seat: Seat, turn: Turn, action: Serve) -> None:
    """E: serve a casual customer its 3 crops for its payout (modified, plus any sales bonus)."""
    player = w.edit(seat)
    index = next(i for i, c in enumerate(player.casuals) if c.card == action.customer)
    payout = board.casual_payout(player, action.customer) + turn.bonus_casual
    player.cash += payout
    player.cart = add_all(player.cart, board.casual_def(action.customer).crops, -1)
    w.discard_cards(board.remove_casual(player, index, w.start_round_for(seat)))
    w.emit("serve", seat=seat, card=action.customer, amount=payout)


def dismiss(w: Work, seat: Seat, action: Dismiss) -> None:
    """Discard a helper unused."""
    player = w.edit(seat)
    index = next(i for i, h in enumerate(player.helpers) if h.card == action.card)
    w.discard_cards(board.remove_helper(player, index, w.start_round_for(seat)))
    w.emit("dismiss", seat=seat, card=action.card)


def draw(w: Work, count: int, rng: Rng) -> tuple[str, ...]:
    """Draw up to `count` cards, shuffling the discard pile into an empty deck when allowed."""
    drawn: list[str] = []
    for _ in range(count):
        if not w.deck:
            if w.config.solo or not w.discard:
                break
            w.deck, w.discard, w.face_down = rng.shuffle(w.discard), (), 0
            w.emit("reshuffle", count=len(w.deck))
        drawn.append(w.deck[0])
        w.deck = w.deck[1:]
    return tuple(drawn)


def buy_pair(w: Work, seat: Seat, turn: Turn, rng: Rng) -> None:
    """G: once per round, pay the larger of your stalls and helpers and draw 2 cards face up."""
    price = board.pair_price(w.players[seat])
    drawn = draw(w, 2, rng)
    if not drawn:  # a simultaneous seat drew the last cards: nothing is bought
        return
    w.edit(seat).cash -= price
    w.set_turn(evolve_turn(turn, pair_bought=True, drawn=drawn, stage=KEEP))
    w.emit("buy_pair", seat=seat, amount=price, cards=list(drawn))


def keep(w: Work, seat: Seat, turn: Turn, action: Keep) -> None:
    """Place the kept card(s), pay for fields among them, discard the rest."""
    player = w.edit(seat)
    cost = sum(K.common_field_cost for c in action.cards if board.is_field(c))
    if cost:
        board.pay_or_owe(player, cost, w.config.strict_stock)
    if action.cards:
        back = action.cards[1] if len(action.cards) == 2 else None
        board.place(player, action.cards[0], back, w.start_round_for(seat))
    w.set_turn(evolve_turn(turn, drawn=(), stage=ACT))
    w.discard_cards(tuple(c for c in turn.drawn if c not in action.cards))
    w.emit("keep", seat=seat, cards=list(action.cards), amount=cost)


def upgrade(w: Work, seat: Seat) -> None:
    """Upgrade the storehouse from 1 to 4 spaces."""
    player = w.edit(seat)
    player.cash -= K.storehouse_upgrade_cost
    player.upgraded = True
    w.emit("upgrade", seat=seat, amount=K.storehouse_upgrade_cost)


def _step(w: Work, seat: Seat, turn: Turn, action: Action, rng: Rng) -> None:
    if isinstance(action, EndTurn):
        scoring.end_turn(w, seat)
    elif isinstance(action, Sow):
        sow(w, seat, action)
    elif isinstance(action, Buy):
        buy(w, seat, turn, action)
    elif isinstance(action, Sell):
        sell(w, seat, action)
    elif isinstance(action, Trade):
        trade(w, seat, action)
    elif isinstance(action, Deliver):
        helper_cards.deliver(w, seat, seat, action.customer, turn.bonus_regular)
    elif isinstance(action, Serve):
        serve(w, seat, turn, action)
    elif isinstance(action, UseHelper):
        helper_cards.use_helper(w, seat, turn, action)
    elif isinstance(action, Dismiss):
        dismiss(w, seat, action)
    elif isinstance(action, BuyPair):
        buy_pair(w, seat, turn, rng)
    elif isinstance(action, Keep):
        keep(w, seat, turn, action)
    elif isinstance(action, Loan):
        borrow(w, seat)
    elif isinstance(action, Upgrade):
        upgrade(w, seat)
    elif isinstance(action, Store):
        scoring.store(w, seat, action)
    elif isinstance(action, FinishStoring):
        scoring.finish_storing(w, seat, turn)
    elif isinstance(action, Advance):
        scoring.advance(w, seat, turn, action)
    else:
        assert isinstance(action, FinishScoring), action
        w.set_turn(evolve_turn(turn, stage=DONE))
