"""The action phase: one seat's steps, the end-of-turn checks, storing, scoring, raising money."""

from __future__ import annotations

from engines.api import Seat
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
from engines.loyang.data import DATA
from engines.loyang.helpers import deliver, helper_uses, use_helper
from engines.loyang.model import Crop, EffectKind, add, add_all, has_all
from engines.loyang.state import (
    LoyangState,
    Player,
    Stage,
    Timing,
    Turn,
    evolve,
    replace_turn,
    start_round_for,
    turn_of,
    with_discards,
    with_player,
    with_turn,
)
from engines.rng import Rng


def buy_price(turn: Turn, crop: Crop) -> int:
    """What buying `crop` costs now, after any pending helper discount."""
    return max(0, DATA.buy[crop] - turn.discount)


def cards_available(state: LoyangState) -> bool:
    """Whether an action card can be drawn (the solo game reshuffles only once)."""
    return bool(state.deck) or (not state.config.solo and bool(state.discard))


def draw(state: LoyangState, count: int, rng: Rng) -> tuple[LoyangState, tuple[str, ...]]:
    """Draw up to `count` cards, shuffling the discard pile into an empty deck when allowed."""
    deck, discard, face_down = state.deck, state.discard, state.face_down
    drawn: list[str] = []
    for _ in range(count):
        if not deck:
            if state.config.solo or not discard:
                break
            deck, discard, face_down = rng.shuffle(discard), (), 0
        drawn.append(deck[0])
        deck = deck[1:]
    return evolve(state, deck=deck, discard=discard, face_down=face_down), tuple(drawn)


# -- legal actions ---------------------------------------------------------------------------


def actions(state: LoyangState, seat: Seat) -> list[Action]:
    """The legal steps of `seat`, whose turn is in progress; the first is the default."""
    player = state.players[seat]
    if player.due > 0:
        return pay_actions(player, state.config.strict_stock)
    turn = turn_of(state, seat)
    assert turn is not None
    if turn.stage is Stage.ACT:
        return act_actions(state, turn, player)
    if turn.stage is Stage.KEEP:
        return keep_actions(turn)
    if turn.stage is Stage.STORE:
        return store_actions(player)
    return score_actions(player)


def pay_actions(player: Player, strict: bool) -> list[Action]:
    """Ways to raise owed money: sell a crop (cheapest first), a cash helper, or a loan."""
    out: list[Action] = [Sell(c) for c in board.sellable(player, strict)]
    out += [
        UseHelper(h.card)
        for h in player.helpers
        if board.helper_def(h.card).effect.kind is EffectKind.GAIN_CASH
    ]
    out.append(Loan())
    return out


def act_actions(state: LoyangState, turn: Turn, player: Player) -> list[Action]:
    """Every step the seat can afford and carry out now, "end my turn" first.

    Actions A-G may be taken any number of times (「A~G項行動執行時皆不限次數」), so no step
    limit applies. None is needed to end a turn: every step spends something finite (a sale
    or purchase loses money on the round trip, a trade empties a stall, a helper, customer, sowing
    or pair is used up), so no position repeats; only voluntary loans (an option) can go on, and a
    random player ends such a turn with probability 1.
    """
    out: list[Action] = [EndTurn()]
    config = state.config
    cart, cash = player.cart, player.cash
    kinds = [c for c in Crop if cart[c]]
    for f in player.fields:
        if f.crop is None:
            out += [Sow(f.id, c) for c in kinds if c in f.allowed]
    for c in Crop:
        if buy_price(turn, c) <= cash and (not config.strict_stock or player.shop[c] > 0):
            out.append(Buy(c))
    out += [Sell(c) for c in sorted(board.sellable(player, config.strict_stock))]
    for stall in player.stalls:
        cost = board.stall_def(stall.card).cost
        for c in Crop:
            if stall.goods[c]:
                out += [Trade(stall.card, c, give) for give in board.gives(cart, cost[c])]
    for regular in player.regulars:
        if board.may_deliver(regular, state.round, config.regular_max) and has_all(
            cart, board.regular_def(regular.card).crops
        ):
            out.append(Deliver(regular.card))
    for casual in player.casuals:
        if has_all(cart, board.casual_def(casual.card).crops):
            out.append(Serve(casual.card))
    for helper in player.helpers:
        out += helper_uses(state, turn, player, helper.card)
        out.append(Dismiss(helper.card))
    if not turn.pair_bought and board.pair_price(player) <= cash and cards_available(state):
        out.append(BuyPair())
    if not player.upgraded and cash >= K.storehouse_upgrade_cost:
        out.append(Upgrade())
    if config.voluntary_loans:
        out.append(Loan())
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
    return [Keep(o) for o in options]


def store_actions(player: Player) -> list[Action]:
    """Store 1 crop at a time up to the storehouse's capacity, upgrade it, or finish."""
    out: list[Action] = [FinishStoring()]
    if sum(player.store) < board.capacity(player):
        out += [Store(c) for c in Crop if player.cart[c]]
    if not player.upgraded and player.cash >= K.storehouse_upgrade_cost:
        out.append(Upgrade())
    return out


def score_actions(player: Player) -> list[Action]:
    """Stay, or pay for 1, 2, ... steps on the Path (as many as the cash allows)."""
    steps = board.affordable_steps(player)
    return [FinishScoring(), *(Advance(n) for n in range(1, steps + 1))]


# -- applying a step -------------------------------------------------------------------------


def apply(state: LoyangState, seat: Seat, action: Action, rng: Rng) -> LoyangState:
    """Apply one legal step of `seat` and settle what follows automatically."""
    player = state.players[seat]
    if player.due > 0:
        state = apply_pay(state, seat, action)
    else:
        turn = turn_of(state, seat)
        assert turn is not None
        if not isinstance(action, EndTurn | FinishStoring | FinishScoring | Store | Advance):
            turn = evolve(turn, steps=turn.steps + 1)
            state = with_turn(state, turn)
        state = _step(state, seat, turn, player, action, rng)
    return normalize(state, seat)


def apply_pay(state: LoyangState, seat: Seat, action: Action) -> LoyangState:
    """Raise owed money by one step (sell, cash helper or loan); pay once it is covered."""
    player = state.players[seat]
    strict = state.config.strict_stock
    if isinstance(action, Sell):
        return with_player(state, seat, board.settle(board.sell(player, action.crop), strict))
    if isinstance(action, Loan):
        return with_player(state, seat, board.settle(_borrow(player), strict))
    assert isinstance(action, UseHelper)
    index = next(i for i, h in enumerate(player.helpers) if h.card == action.card)
    player = evolve(player, cash=player.cash + board.helper_def(action.card).effect.amount)
    player, discards = board.remove_helper(player, index, start_round_for(state, seat))
    return with_discards(with_player(state, seat, board.settle(player, strict)), discards)


def _borrow(player: Player) -> Player:
    return evolve(player, loans=player.loans + 1, cash=player.cash + K.loan_amount)


def _step(
    state: LoyangState, seat: Seat, turn: Turn, player: Player, action: Action, rng: Rng
) -> LoyangState:
    start = start_round_for(state, seat)
    if isinstance(action, EndTurn):
        return end_turn(state, seat)
    if isinstance(action, Sow):
        index = next(i for i, f in enumerate(player.fields) if f.id == action.field)
        return with_player(state, seat, board.sow(player, index, action.crop))
    if isinstance(action, Buy):
        price = buy_price(turn, action.crop)
        player = evolve(
            player,
            cash=player.cash - price,
            cart=add(player.cart, action.crop),
            shop=add(player.shop, action.crop, -1) if player.shop[action.crop] else player.shop,
        )
        return with_player(state, seat, player, turns=replace_turn(state, evolve(turn, discount=0)))
    if isinstance(action, Sell):
        return with_player(state, seat, board.sell(player, action.crop))
    if isinstance(action, Trade):
        index = next(i for i, s in enumerate(player.stalls) if s.card == action.stall)
        player = evolve(player, cart=add(add_all(player.cart, action.give, -1), action.crop))
        player, discards = board.stall_after_take(player, index, action.crop, start)
        return with_discards(with_player(state, seat, player), discards)
    if isinstance(action, Deliver):
        return deliver(state, seat, seat, action.customer, turn.bonus_regular)
    if isinstance(action, Serve):
        index = next(i for i, c in enumerate(player.casuals) if c.card == action.customer)
        payout = board.casual_payout(player, action.customer) + turn.bonus_casual
        crops = board.casual_def(action.customer).crops
        player = evolve(player, cash=player.cash + payout, cart=add_all(player.cart, crops, -1))
        player, discards = board.remove_casual(player, index, start)
        return with_discards(with_player(state, seat, player), discards)
    if isinstance(action, UseHelper):
        return use_helper(state, seat, turn, player, action)
    if isinstance(action, Dismiss):
        index = next(i for i, h in enumerate(player.helpers) if h.card == action.card)
        player, discards = board.remove_helper(player, index, start)
        return with_discards(with_player(state, seat, player), discards)
    if isinstance(action, BuyPair):
        price = board.pair_price(player)
        state, drawn = draw(state, 2, rng)
        if not drawn:  # a simultaneous seat drew the last cards: nothing is bought
            return state
        player = evolve(player, cash=player.cash - price)
        turn = evolve(turn, pair_bought=True, drawn=drawn, stage=Stage.KEEP)
        return with_player(state, seat, player, turns=replace_turn(state, turn))
    if isinstance(action, Keep):
        return keep(state, seat, turn, player, action)
    if isinstance(action, Loan):
        return with_player(state, seat, _borrow(player))
    if isinstance(action, Upgrade):
        player = evolve(player, cash=player.cash - K.storehouse_upgrade_cost, upgraded=True)
        return with_player(state, seat, player)
    if isinstance(action, Store):
        player = evolve(
            player, cart=add(player.cart, action.crop, -1), store=add(player.store, action.crop)
        )
        return with_player(state, seat, player)
    if isinstance(action, FinishStoring):
        return with_player(
            state,
            seat,
            _clear_cart(player, state),
            turns=replace_turn(state, evolve(turn, stage=Stage.SCORE)),
        )
    if isinstance(action, Advance):
        cost = board.path_cost(player.position, action.steps)
        player = evolve(player, cash=player.cash - cost, position=player.position + action.steps)
        return with_player(
            state, seat, player, turns=replace_turn(state, evolve(turn, stage=Stage.DONE))
        )
    assert isinstance(action, FinishScoring), action
    return with_turn(state, evolve(turn, stage=Stage.DONE))


def keep(state: LoyangState, seat: Seat, turn: Turn, player: Player, action: Keep) -> LoyangState:
    """Place the kept card(s), pay for fields among them, discard the rest."""
    cost = sum(K.common_field_cost for c in action.cards if board.is_field(c))
    if cost:
        player = board.pay_or_owe(player, cost, state.config.strict_stock)
    if action.cards:
        back = action.cards[1] if len(action.cards) == 2 else None
        player = board.place(player, action.cards[0], back, start_round_for(state, seat))
    rest = tuple(c for c in turn.drawn if c not in action.cards)
    turn = evolve(turn, drawn=(), stage=Stage.ACT)
    return with_discards(with_player(state, seat, player, turns=replace_turn(state, turn)), rest)


def end_turn(state: LoyangState, seat: Seat) -> LoyangState:
    """Check regular customers (flip, fine, window end), then go on to storing or finish."""
    player = state.players[seat]
    fines = 0
    regulars = []
    discards: list[str] = []
    revealed: list[str | None] = []
    for regular in player.regulars:
        k = state.round - regular.start + 1
        if k < 1:
            regulars.append(regular)
            continue
        covered = (regular.last == state.round and regular.times > 0) or regular.rows >= k
        if not covered:
            if regular.good:
                regular = evolve(regular, good=False)
            else:
                fines += K.regular_fine
        if k >= len(board.regular_def(regular.card).rows):
            discards.append(regular.card)
            revealed.append(regular.under)
        else:
            regulars.append(regular)
    player = evolve(player, regulars=tuple(regulars))
    acted = state.acted | {seat}
    state = evolve(state, acted=acted)
    for under in revealed:
        player = board.reveal_under(player, under, state.round + 1)
    player = board.pay_or_owe(player, fines, state.config.strict_stock) if fines else player
    turn = turn_of(state, seat)
    assert turn is not None
    stage = Stage.STORE if state.config.timing is Timing.OWN_TURN else Stage.DONE
    state = with_player(state, seat, player, turns=replace_turn(state, evolve(turn, stage=stage)))
    return with_discards(state, tuple(discards))


def _clear_cart(player: Player, state: LoyangState) -> Player:
    """Sell what is left on the cart (strict stock: what fits; the rest goes to the supply)."""
    for crop in Crop:
        for _ in range(player.cart[crop]):
            if state.config.strict_stock and player.shop[crop] >= DATA.shop_capacity[crop]:
                player = evolve(player, cart=add(player.cart, crop, -1))
            else:
                player = board.sell(player, crop)
    return player


def normalize(state: LoyangState, seat: Seat) -> LoyangState:
    """Skip stages of `seat` that offer no real choice; drop its turn once done."""
    while True:
        turn = turn_of(state, seat)
        if turn is None or state.players[seat].due > 0:
            return state
        player = state.players[seat]
        if turn.stage is Stage.STORE and (not any(player.cart) or len(store_actions(player)) == 1):
            state = with_player(
                state,
                seat,
                _clear_cart(player, state),
                turns=replace_turn(state, evolve(turn, stage=Stage.SCORE)),
            )
        elif turn.stage is Stage.SCORE and board.affordable_steps(player) == 0:
            state = with_turn(state, evolve(turn, stage=Stage.DONE))
        elif turn.stage is Stage.DONE:
            return evolve(state, turns=tuple(t for t in state.turns if t.seat != seat))
        else:
            return state
