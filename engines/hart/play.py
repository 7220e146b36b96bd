"""The course of play: turns, inspections, bribes, seizures, rounds and the end sale, as pure steps.

Every function takes a state and returns a new one; `rules.HartRules` checks legality before it
calls them. Steps that need no decision (dealing, stowing, selling) run here automatically until
the next decision is reached.
"""

from __future__ import annotations

from dataclasses import replace

from engines.api import Seat
from engines.hart.actions import (
    Accept,
    Action,
    Appoint,
    Declare,
    Inspect,
    Keep,
    Offer,
    Open,
    Pack,
    Pass,
    Seize,
)
from engines.hart.goods import (
    CARDS,
    EMPTY,
    GOODS,
    SALE_CAPS,
    Bag,
    double_sale,
    split_by_declaration,
)
from engines.hart.state import (
    EXTRA_CONTROL_SEATS,
    HAND_SIZE,
    ROUNDS,
    Config,
    Control,
    Declaration,
    HartState,
    Negotiation,
    Phase,
    Player,
    TieRule,
)
from engines.rng import Rng


def new_match(seats: int, config: Config, rng: Rng) -> HartState:
    """Shuffle, pick the first sheriff from the setup stream, deal 5 cards each, start turn 1."""
    deck = rng.shuffle(list(Bag.full_deck()))
    first = rng.below(seats)
    player = Player(extra_control_token=seats >= EXTRA_CONTROL_SEATS)
    state = HartState(
        config=config,
        number=-1,
        phase=Phase.PACK,
        round=0,
        turn=0,
        sheriff=first,
        players=(player,) * seats,
        deck=deck,
        discard=EMPTY,
        last_seen=(-1,) * seats,
    )
    state = state.emit("setup", first_sheriff=first, money=[p.money for p in state.players])
    return replace(begin_turn(state, rng), number=0)


# -- dealing and turns ----------------------------------------------------------------------------


def refill(state: HartState, rng: Rng) -> HartState:
    """Deal one card at a time clockwise from the sheriff's left until every hand holds 5.

    An empty draw pile takes the shuffled discard pile; when both are empty, hands stay short.
    """
    deck = list(state.deck)
    discard = state.discard
    hands = [p.hand for p in state.players]
    dealt = [0] * state.seats
    order = state.clockwise((state.sheriff + 1) % state.seats)
    while any(len(hands[s]) < HAND_SIZE for s in order):
        for seat in order:
            if len(hands[seat]) >= HAND_SIZE:
                continue
            if not deck and len(discard):
                deck = list(rng.shuffle(list(discard)))
                state = state.emit("reshuffle", count=len(deck))
                discard = EMPTY
            if not deck:
                break
            card = deck.pop(0)
            hands[seat] = hands[seat] + Bag.of([card])
            dealt[seat] += 1
        if not deck and not len(discard):
            break
    players = tuple(replace(p, hand=hands[s]) for s, p in enumerate(state.players))
    state = replace(state, players=players, deck=tuple(deck), discard=discard)
    if any(dealt):
        state = state.emit("deal", counts=[n for n in dealt])
    return state


def begin_turn(state: HartState, rng: Rng) -> HartState:
    """Refill the hands and ask every trader holding cards to pack."""
    state = refill(state, rng)
    state = state.emit("turn", round=state.round + 1, turn=state.turn + 1, sheriff=state.sheriff)
    order = state.clockwise((state.sheriff + 1) % state.seats)[:-1]
    traders = tuple(s for s in order if len(state.player(s).hand) > 0)
    state = replace(state, phase=Phase.PACK, traders=traders, selected=(), negotiation=None)
    if not traders:
        return end_turn(state, rng)
    return state


def pack(state: HartState, actions: dict[Seat, Pack]) -> HartState:
    """Every trader's chosen cards go from hand to suitcase at once."""
    for seat in state.traders:
        goods = actions[seat].goods
        p = state.player(seat)
        state = state.with_player(seat, hand=p.hand - goods, suitcase=goods)
        state = state.emit("pack", seat=seat, count=len(goods))
    return replace(state, phase=Phase.DECLARE, queue=state.traders)


def declare(state: HartState, seat: Seat, action: Declare) -> HartState:
    """One trader's declaration; after the last one the sheriff inspects."""
    state = state.with_player(seat, declaration=Declaration(action.count, action.good))
    state = state.emit("declare", seat=seat, count=action.count, good=action.good.value)
    queue = state.queue[1:]
    return replace(state, queue=queue, phase=Phase.DECLARE if queue else Phase.INSPECT)


def choose_check(state: HartState, action: Inspect | Pass, rng: Rng) -> HartState:
    """The sheriff's inspection or extra control: a target, or nobody."""
    control = Control.INSPECTION if state.phase is Phase.INSPECT else Control.EXTRA_CONTROL
    if isinstance(action, Pass):
        state = state.emit("pass", seat=state.sheriff, step=control.value)
        return after_check(state, control, rng)
    if control is Control.EXTRA_CONTROL:
        state = state.with_player(state.sheriff, extra_control_token=False)
    target = action.seat
    state = state.emit("inspect", sheriff=state.sheriff, seat=target, control=control.value)
    state = replace(
        state,
        selected=(*state.selected, target),
        negotiation=Negotiation(target, control),
        phase=Phase.BRIBE,
    )
    if state.player(target).money == 0:  # nothing to offer: the suitcase opens at once
        return open_suitcase(state, target, rng)
    return state


def bargain(state: HartState, seat: Seat, action: Offer | Accept | Open, rng: Rng) -> HartState:
    """One move of a bribe negotiation."""
    talk = state.negotiation
    assert talk is not None
    trader = talk.seat
    if isinstance(action, Offer):
        state = state.emit("offer", seat=seat, amount=action.amount)
        return replace(
            state, negotiation=replace(talk, offers=(*talk.offers, (seat, action.amount)))
        )
    if isinstance(action, Open):
        state = state.emit("no_deal", seat=seat)
        return open_suitcase(state, trader, rng)
    standing = talk.last()
    assert standing is not None
    amount = standing[1]
    state = state.with_player(trader, money=state.player(trader).money - amount)
    state = state.with_player(state.sheriff, money=state.player(state.sheriff).money + amount)
    state = state.emit("bribe", seat=trader, sheriff=state.sheriff, amount=amount)
    return after_check(replace(state, negotiation=None), talk.control, rng)


def open_suitcase(state: HartState, seat: Seat, rng: Rng) -> HartState:
    """Lay the suitcase out: compensation if every card matches, else penalties and discards."""
    talk = state.negotiation
    control = talk.control if talk is not None else Control.INSPECTION
    p = state.player(seat)
    decl = p.declaration
    assert decl is not None
    kept, smuggled = split_by_declaration(p.suitcase, decl.count, decl.good)
    compensation = penalty_due = paid = 0
    if not len(smuggled):
        exact = len(p.suitcase) == decl.count
        compensation = kept.penalty() if exact or not state.config.strict_count else 0
    else:
        penalty_due = smuggled.penalty()
        paid = min(
            penalty_due, p.money
        )  # H4: an insolvent trader pays all and the rest is forgiven
    state = state.with_player(
        seat,
        money=p.money + compensation - paid,
        suitcase=EMPTY,
        behind=p.behind + kept,
    )
    state = replace(state, discard=state.discard + smuggled, negotiation=None)
    state = state.emit(
        "open",
        seat=seat,
        sheriff=state.sheriff,
        goods=p.suitcase.names(),
        declared_count=decl.count,
        declared_good=decl.good.value,
        kept=kept.names(),
        discarded=smuggled.names(),
        compensation=compensation,
        penalty_due=penalty_due,
        penalty_paid=paid,
    )
    return after_check(state, control, rng)


def unchecked(state: HartState) -> tuple[Seat, ...]:
    """Traders with a suitcase who were not selected this turn."""
    return tuple(s for s in state.traders if s not in state.selected)


def after_check(state: HartState, control: Control, rng: Rng) -> HartState:
    """Move on to the extra control, the seizure or the end of the turn."""
    sheriff = state.player(state.sheriff)
    state = replace(state, negotiation=None)
    if control is Control.INSPECTION and sheriff.extra_control_token and unchecked(state):
        return replace(state, phase=Phase.EXTRA_CONTROL)
    if sheriff.seizure_token and unchecked(state):
        return replace(state, phase=Phase.SEIZE)
    return end_turn(state, rng)


def seize(state: HartState, action: Seize | Pass, rng: Rng) -> HartState:
    """The seizure: mismatching cards go behind the sheriff's suitcase; no bribe, no refund."""
    sheriff = state.sheriff
    if isinstance(action, Pass):
        return end_turn(state.emit("pass", seat=sheriff, step="seizure"), rng)
    target = action.seat
    p = state.player(target)
    decl = p.declaration
    assert decl is not None
    returned, taken = split_by_declaration(p.suitcase, decl.count, decl.good)
    state = state.with_player(target, suitcase=EMPTY, behind=p.behind + returned)
    state = state.with_player(
        sheriff, seizure_token=False, behind=state.player(sheriff).behind + taken
    )
    state = state.emit(
        "seize", sheriff=sheriff, seat=target, taken_count=len(taken), returned_count=len(returned)
    )
    state = state.emit(
        "seized",
        (sheriff, target),
        sheriff=sheriff,
        seat=target,
        goods=p.suitcase.names(),
        taken=taken.names(),
        returned=returned.names(),
    )
    return end_turn(state, rng)


def end_turn(state: HartState, rng: Rng) -> HartState:
    """Unchecked suitcases go behind their owners; the next sheriff starts, or the round ends."""
    stowed = [len(p.suitcase) for p in state.players]
    if any(stowed):
        players = tuple(
            replace(p, suitcase=EMPTY, behind=p.behind + p.suitcase) for p in state.players
        )
        state = replace(state, players=players).emit("stow", counts=[n for n in stowed])
    players = tuple(replace(p, declaration=None) for p in state.players)
    state = replace(state, players=players, traders=(), selected=(), negotiation=None)
    if state.turn + 1 < state.turns_per_round:
        state = replace(state, turn=state.turn + 1, sheriff=(state.sheriff + 1) % state.seats)
        return begin_turn(state, rng)
    state = replace(state, last_sheriff=state.sheriff)
    keepers = tuple(s for s in state.clockwise(state.sheriff) if len(state.player(s).behind))
    if keepers:
        return replace(state, phase=Phase.KEEP, queue=keepers)
    return sell_round(state, rng)


# -- the end of a round ---------------------------------------------------------------------------


def keep(state: HartState, seat: Seat, action: Keep, rng: Rng) -> HartState:
    """One player's keep-3 choice, announced by count; after the last one the round's goods sell."""
    p = state.player(seat)
    state = state.with_player(seat, behind=p.behind - action.goods, under=p.under + action.goods)
    state = state.emit("keep", seat=seat, count=len(action.goods))
    queue = state.queue[1:]
    if queue:
        return replace(state, queue=queue)
    return sell_round(replace(state, queue=()), rng)


def sell_round(state: HartState, rng: Rng) -> HartState:
    """Sell everything behind the suitcases at printed value, then pick the next first sheriff."""
    for seat in range(state.seats):
        p = state.player(seat)
        if len(p.behind):
            income = p.behind.value()
            state = state.with_player(seat, money=p.money + income, behind=EMPTY)
            state = replace(state, discard=state.discard + p.behind)
            state = state.emit("sell", seat=seat, goods=p.behind.names(), income=income)
    state = state.emit("round_end", round=state.round + 1, money=[p.money for p in state.players])
    if state.round + 1 >= ROUNDS:
        return final_sale(state)
    last = state.last_sheriff
    assert last is not None
    poorest = min(p.money for p in state.players)
    tied = [
        s for s in state.clockwise((last + 1) % state.seats) if state.player(s).money == poorest
    ]
    if len(tied) > 1 and state.config.tie_rule is TieRule.ZH:
        state = state.emit("poorest", seats=[s for s in sorted(tied)], chooser=None)
        return start_round(state, (last + 1) % state.seats, rng)
    state = state.emit("poorest", seats=[s for s in sorted(tied)], chooser=tied[0])
    return replace(state, phase=Phase.APPOINT, queue=(tied[0],))


def appoint(state: HartState, seat: Seat, action: Appoint, rng: Rng) -> HartState:
    """The poorest player names the next round's first sheriff."""
    state = state.emit("appoint", seat=seat, sheriff=action.seat)
    return start_round(replace(state, queue=()), action.seat, rng)


def start_round(state: HartState, first: Seat, rng: Rng) -> HartState:
    """The next round begins with `first` as sheriff."""
    state = replace(state, round=state.round + 1, turn=0, sheriff=first, last_sheriff=None)
    return begin_turn(state, rng)


def final_sale(state: HartState) -> HartState:
    """Sell the kept goods at double value under the caps, kind by kind, and end the match."""
    caps = SALE_CAPS[state.seats]
    for good, cap in zip(GOODS, caps, strict=True):
        held = [p.under.count(good) for p in state.players]
        if not any(held):
            continue
        income = double_sale(held, cap, CARDS[good].value)
        for seat, amount in enumerate(income):
            if amount:
                state = state.with_player(seat, money=state.player(seat).money + amount)
        state = state.emit(
            "final_sale", good=good.value, cap=cap, held=[n for n in held], incomes=list(income)
        )
    state = state.emit("game_over", money=[p.money for p in state.players])
    return replace(state, phase=Phase.OVER, queue=())


def step(state: HartState, seat: Seat, action: Action, rng: Rng) -> HartState:
    """Apply the single action of a sequential decision (every phase but packing)."""
    phase = state.phase
    if phase is Phase.DECLARE and isinstance(action, Declare):
        return declare(state, seat, action)
    if phase in (Phase.INSPECT, Phase.EXTRA_CONTROL) and isinstance(action, Inspect | Pass):
        return choose_check(state, action, rng)
    if phase is Phase.BRIBE and isinstance(action, Offer | Accept | Open):
        return bargain(state, seat, action, rng)
    if phase is Phase.SEIZE and isinstance(action, Seize | Pass):
        return seize(state, action, rng)
    if phase is Phase.KEEP and isinstance(action, Keep):
        return keep(state, seat, action, rng)
    if phase is Phase.APPOINT and isinstance(action, Appoint):
        return appoint(state, seat, action, rng)
    raise AssertionError(f"{action!r} reached phase {phase}")  # legality was checked before
