"""The course of play: turns, inspections, bribes, seizures, rounds and the end sale, as steps.

`rules.HartRules` checks legality, copies the state into a private mutable `Work`, and calls the
step of the decision, which edits that copy in place; the copy is frozen into the next state on
return (see `engines.hart.work`). Steps that need no decision (dealing, stowing, selling) run here
automatically until the next decision is reached.
"""

from __future__ import annotations

from engines.api import Seat, Transition
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
    Good,
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
from engines.hart.work import Work
from engines.rng import Rng


def new_match(seats: int, config: Config, rng: Rng) -> Transition[HartState]:
    """Shuffle, pick the first sheriff from the setup stream, deal 5 cards each, start turn 1."""
    deck = rng.shuffle(list(Bag.full_deck()))
    first = rng.below(seats)
    player = Player(extra_control_token=seats >= EXTRA_CONTROL_SEATS)
    w = Work(
        HartState(
            config=config,
            number=-1,
            phase=Phase.PACK,
            round=0,
            turn=0,
            sheriff=first,
            players=(player,) * seats,
            deck=deck,
            discard=EMPTY,
        )
    )
    w.emit("setup", first_sheriff=first, money=[p.money for p in w.players])
    begin_turn(w, rng)
    w.number = 0
    return Transition(w.freeze(), tuple(w.events))


# -- dealing and turns ----------------------------------------------------------------------------


def refill(w: Work, rng: Rng) -> None:
    """Deal one card at a time clockwise from the sheriff's left until every hand holds 5.

    An empty draw pile takes the shuffled discard pile; when both are empty, hands stay short.
    """
    deck = w.deck
    top = 0
    """Cards dealt from the top of `deck` so far."""
    discard = w.discard
    held = [len(p.hand) for p in w.players]
    dealt: list[list[Good]] = [[] for _ in w.players]
    order = w.clockwise((w.sheriff + 1) % w.seats)
    while any(held[s] < HAND_SIZE for s in order):
        for seat in order:
            if held[seat] >= HAND_SIZE:
                continue
            if top == len(deck) and len(discard):
                deck, top = rng.shuffle(list(discard)), 0
                w.emit("reshuffle", count=len(deck))
                discard = EMPTY
            if top == len(deck):
                break
            dealt[seat].append(deck[top])
            top += 1
            held[seat] += 1
        if top == len(deck) and not len(discard):
            break
    for seat, cards in enumerate(dealt):
        if cards:
            p = w.edit(seat)
            p.hand = p.hand + Bag.of(cards)
    w.deck = tuple(deck[top:])
    w.discard = discard
    if any(dealt):
        w.emit("deal", counts=[len(cards) for cards in dealt])


def begin_turn(w: Work, rng: Rng) -> None:
    """Refill the hands and ask every trader holding cards to pack."""
    refill(w, rng)
    w.emit("turn", round=w.round + 1, turn=w.turn + 1, sheriff=w.sheriff)
    order = w.clockwise((w.sheriff + 1) % w.seats)[:-1]
    w.traders = tuple(s for s in order if len(w.player(s).hand) > 0)
    w.phase, w.selected, w.negotiation = Phase.PACK, (), None
    if not w.traders:
        end_turn(w, rng)


def pack(w: Work, actions: dict[Seat, Pack]) -> None:
    """Every trader's chosen cards go from hand to suitcase at once."""
    for seat in w.traders:
        goods = actions[seat].goods
        p = w.edit(seat)
        p.hand, p.suitcase = p.hand - goods, goods
        w.emit("pack", seat=seat, count=len(goods))
    w.phase, w.queue = Phase.DECLARE, w.traders


def declare(w: Work, seat: Seat, action: Declare) -> None:
    """One trader's declaration; after the last one the sheriff inspects."""
    w.edit(seat).declaration = Declaration(action.count, action.good)
    w.emit("declare", seat=seat, count=action.count, good=action.good.value)
    w.queue = w.queue[1:]
    w.phase = Phase.DECLARE if w.queue else Phase.INSPECT


def choose_check(w: Work, action: Inspect | Pass, rng: Rng) -> None:
    """The sheriff's inspection or extra control: a target, or nobody."""
    control = Control.INSPECTION if w.phase is Phase.INSPECT else Control.EXTRA_CONTROL
    if isinstance(action, Pass):
        w.emit("pass", seat=w.sheriff, step=control.value)
        after_check(w, control, rng)
        return
    if control is Control.EXTRA_CONTROL:
        w.edit(w.sheriff).extra_control_token = False
    target = action.seat
    w.emit("inspect", sheriff=w.sheriff, seat=target, control=control.value)
    w.selected = (*w.selected, target)
    w.negotiation = Negotiation(target, control)
    w.phase = Phase.BRIBE
    if w.player(target).money == 0:  # nothing to offer: the suitcase opens at once
        open_suitcase(w, target, rng)


def bargain(w: Work, seat: Seat, action: Offer | Accept | Open, rng: Rng) -> None:
    """One move of a bribe negotiation."""
    talk = w.negotiation
    assert talk is not None
    trader = talk.seat
    if isinstance(action, Offer):
        w.emit("offer", seat=seat, amount=action.amount)
        w.negotiation = Negotiation(talk.seat, talk.control, (*talk.offers, (seat, action.amount)))
        return
    if isinstance(action, Open):
        w.emit("no_deal", seat=seat)
        open_suitcase(w, trader, rng)
        return
    standing = talk.last()
    assert standing is not None
    amount = standing[1]
    w.edit(trader).money -= amount
    w.edit(w.sheriff).money += amount
    w.emit("bribe", seat=trader, sheriff=w.sheriff, amount=amount)
    w.negotiation = None
    after_check(w, talk.control, rng)


def open_suitcase(w: Work, seat: Seat, rng: Rng) -> None:
    """Lay the suitcase out: compensation if every card matches, else penalties and discards."""
    talk = w.negotiation
    control = talk.control if talk is not None else Control.INSPECTION
    p = w.edit(seat)
    decl, suitcase = p.declaration, p.suitcase
    assert decl is not None
    kept, smuggled = split_by_declaration(suitcase, decl.count, decl.good)
    compensation = penalty_due = paid = 0
    if not len(smuggled):
        exact = len(suitcase) == decl.count
        compensation = kept.penalty() if exact or not w.config.strict_count else 0
    else:
        penalty_due = smuggled.penalty()
        paid = min(penalty_due, p.money)  # H4: an insolvent trader pays all, the rest is forgiven
    p.money += compensation - paid
    p.suitcase = EMPTY
    p.behind = p.behind + kept
    w.discard = w.discard + smuggled
    w.negotiation = None
    w.emit(
        "open",
        seat=seat,
        sheriff=w.sheriff,
        goods=suitcase.names(),
        declared_count=decl.count,
        declared_good=decl.good.value,
        kept=kept.names(),
        discarded=smuggled.names(),
        compensation=compensation,
        penalty_due=penalty_due,
        penalty_paid=paid,
    )
    after_check(w, control, rng)


def unchecked(state: HartState | Work) -> tuple[Seat, ...]:
    """Traders with a suitcase who were not selected this turn."""
    return tuple(s for s in state.traders if s not in state.selected)


def after_check(w: Work, control: Control, rng: Rng) -> None:
    """Move on to the extra control, the seizure or the end of the turn."""
    sheriff = w.player(w.sheriff)
    w.negotiation = None
    if control is Control.INSPECTION and sheriff.extra_control_token and unchecked(w):
        w.phase = Phase.EXTRA_CONTROL
    elif sheriff.seizure_token and unchecked(w):
        w.phase = Phase.SEIZE
    else:
        end_turn(w, rng)


def seize(w: Work, action: Seize | Pass, rng: Rng) -> None:
    """The seizure: mismatching cards go behind the sheriff's suitcase; no bribe, no refund."""
    sheriff = w.sheriff
    if isinstance(action, Pass):
        w.emit("pass", seat=sheriff, step="seizure")
        end_turn(w, rng)
        return
    target = action.seat
    p = w.edit(target)
    decl, suitcase = p.declaration, p.suitcase
    assert decl is not None
    returned, taken = split_by_declaration(suitcase, decl.count, decl.good)
    p.suitcase, p.behind = EMPTY, p.behind + returned
    s = w.edit(sheriff)
    s.seizure_token, s.behind = False, s.behind + taken
    w.emit(
        "seize", sheriff=sheriff, seat=target, taken_count=len(taken), returned_count=len(returned)
    )
    w.emit(
        "seized",
        (sheriff, target),
        sheriff=sheriff,
        seat=target,
        goods=suitcase.names(),
        taken=taken.names(),
        returned=returned.names(),
    )
    end_turn(w, rng)


def end_turn(w: Work, rng: Rng) -> None:
    """Unchecked suitcases go behind their owners; the next sheriff starts, or the round ends."""
    stowed = [len(p.suitcase) for p in w.players]
    if any(stowed):
        for seat, count in enumerate(stowed):
            if count:
                stowing = w.edit(seat)
                stowing.suitcase, stowing.behind = EMPTY, stowing.behind + stowing.suitcase
        w.emit("stow", counts=[n for n in stowed])
    for seat, held in enumerate(w.players):
        if held.declaration is not None:
            w.edit(seat).declaration = None
    w.traders, w.selected, w.negotiation = (), (), None
    if w.turn + 1 < w.turns_per_round:
        w.turn, w.sheriff = w.turn + 1, (w.sheriff + 1) % w.seats
        begin_turn(w, rng)
        return
    w.last_sheriff = w.sheriff
    keepers = tuple(s for s in w.clockwise(w.sheriff) if len(w.player(s).behind))
    if keepers:
        w.phase, w.queue = Phase.KEEP, keepers
        return
    sell_round(w, rng)


# -- the end of a round ---------------------------------------------------------------------------


def keep(w: Work, seat: Seat, action: Keep, rng: Rng) -> None:
    """One player's keep-3 choice, announced by count; after the last one the round's goods sell."""
    p = w.edit(seat)
    p.behind, p.under = p.behind - action.goods, p.under + action.goods
    w.emit("keep", seat=seat, count=len(action.goods))
    w.queue = w.queue[1:]
    if not w.queue:
        sell_round(w, rng)


def sell_round(w: Work, rng: Rng) -> None:
    """Sell everything behind the suitcases at printed value, then pick the next first sheriff."""
    for seat in range(w.seats):
        behind = w.player(seat).behind
        if len(behind):
            income = behind.value()
            p = w.edit(seat)
            p.money, p.behind = p.money + income, EMPTY
            w.discard = w.discard + behind
            w.emit("sell", seat=seat, goods=behind.names(), income=income)
    w.emit("round_end", round=w.round + 1, money=[p.money for p in w.players])
    if w.round + 1 >= ROUNDS:
        _final_sale(w)
        return
    last = w.last_sheriff
    assert last is not None
    poorest = min(p.money for p in w.players)
    tied = [s for s in w.clockwise((last + 1) % w.seats) if w.player(s).money == poorest]
    if len(tied) > 1 and w.config.tie_rule is TieRule.ZH:
        w.emit("poorest", seats=[s for s in sorted(tied)], chooser=None)
        start_round(w, (last + 1) % w.seats, rng)
        return
    w.emit("poorest", seats=[s for s in sorted(tied)], chooser=tied[0])
    w.phase, w.queue = Phase.APPOINT, (tied[0],)


def appoint(w: Work, seat: Seat, action: Appoint, rng: Rng) -> None:
    """The poorest player names the next round's first sheriff."""
    w.emit("appoint", seat=seat, sheriff=action.seat)
    w.queue = ()
    start_round(w, action.seat, rng)


def start_round(w: Work, first: Seat, rng: Rng) -> None:
    """The next round begins with `first` as sheriff."""
    w.round, w.turn, w.sheriff, w.last_sheriff = w.round + 1, 0, first, None
    begin_turn(w, rng)


def final_sale(state: HartState) -> Transition[HartState]:
    """Sell the kept goods at double value under the caps, kind by kind, and end the match."""
    w = Work(state)
    _final_sale(w)
    return Transition(w.freeze(), tuple(w.events))


def _final_sale(w: Work) -> None:
    caps = SALE_CAPS[w.seats]
    for good, cap in zip(GOODS, caps, strict=True):
        held = [p.under.count(good) for p in w.players]
        if not any(held):
            continue
        income = double_sale(held, cap, CARDS[good].value)
        for seat, amount in enumerate(income):
            if amount:
                w.edit(seat).money += amount
        w.emit("final_sale", good=good.value, cap=cap, held=[n for n in held], incomes=list(income))
    w.emit("game_over", money=[p.money for p in w.players])
    w.phase, w.queue = Phase.OVER, ()


def step(w: Work, seat: Seat, action: Action, rng: Rng) -> None:
    """Apply the single action of a sequential decision (every phase but packing)."""
    phase = w.phase
    if phase is Phase.DECLARE and isinstance(action, Declare):
        declare(w, seat, action)
    elif phase in (Phase.INSPECT, Phase.EXTRA_CONTROL) and isinstance(action, Inspect | Pass):
        choose_check(w, action, rng)
    elif phase is Phase.BRIBE and isinstance(action, Offer | Accept | Open):
        bargain(w, seat, action, rng)
    elif phase is Phase.SEIZE and isinstance(action, Seize | Pass):
        seize(w, action, rng)
    elif phase is Phase.KEEP and isinstance(action, Keep):
        keep(w, seat, action, rng)
    elif phase is Phase.APPOINT and isinstance(action, Appoint):
        appoint(w, seat, action, rng)
    else:
        raise AssertionError(f"{action!r} reached phase {phase}")  # legality was checked before
