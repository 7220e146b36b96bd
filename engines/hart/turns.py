"""The course of play: setup, turns and rounds, and which rule answers each decision.

`rules.HartRules.step` copies the state into a `Work`, and `play` hands the decision's actions to
the rule module of the phase (`packing`, `inspection`, `seizure`, `round_end`), then moves the
match on: the steps that need no decision (dealing, stowing, selling, the final sale) run here
until the next decision is reached.
"""

from __future__ import annotations

from collections.abc import Mapping

from engines.api import Seat, Transition
from engines.frozen import new_transition
from engines.hart import dealing, inspection, packing, round_end, scoring, seizure
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
from engines.hart.data import EXTRA_CONTROL_SEATS, ROUNDS
from engines.hart.members import (
    APPOINT,
    BRIBE,
    CONTROL_EXTRA_CONTROL,
    DECLARE,
    INSPECT,
    INSPECTION,
    KEEP,
    PACK,
    PHASE_EXTRA_CONTROL,
    SEIZE,
)
from engines.hart.state import EMPTY, Bag, Config, Control, HartState, Player
from engines.hart.work import Work
from engines.rng import Rng


def start_match(seats: int, config: Config, rng: Rng) -> Transition[HartState]:
    """Setup: shuffle, pick the first sheriff from the setup stream, deal 5 cards each, $30 each,
    a seizure token each (and an extra control token with 5-6 seats), and start turn 1."""
    deck = rng.shuffle(list(Bag.full_deck()))
    first = rng.below(seats)
    player = Player(extra_control_token=seats >= EXTRA_CONTROL_SEATS)
    w = Work(
        HartState(
            config=config,
            number=-1,
            phase=PACK,
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
    return new_transition(w.freeze(), tuple(w.events))


def play(w: Work, actions: Mapping[Seat, Action], rng: Rng) -> None:
    """Apply the checked joint action of the current decision, then run on to the next one."""
    phase = w.phase
    if phase is PACK:
        packing.pack(w, {s: a for s, a in actions.items() if isinstance(a, Pack)})
        w.phase, w.queue = DECLARE, w.traders
        return
    ((seat, action),) = actions.items()
    if phase is DECLARE and isinstance(action, Declare):
        packing.declare(w, seat, action)
        w.queue = w.queue[1:]
        w.phase = DECLARE if w.queue else INSPECT
    elif phase in (INSPECT, PHASE_EXTRA_CONTROL) and isinstance(action, (Inspect, Pass)):
        control = INSPECTION if phase is INSPECT else CONTROL_EXTRA_CONTROL
        if isinstance(action, Pass):
            inspection.inspect_nobody(w, control)
        else:
            inspection.inspect(w, action.seat, control)
        if w.negotiation is None:  # nobody inspected, or a penniless trader opened at once
            after_check(w, control, rng)
    elif phase is BRIBE and isinstance(action, (Offer, Accept, Open)):
        talk = w.negotiation
        assert talk is not None
        if inspection.bargain(w, seat, action):
            after_check(w, talk.control, rng)
    elif phase is SEIZE and isinstance(action, (Seize, Pass)):
        if isinstance(action, Pass):
            seizure.keep_token(w)
        else:
            seizure.seize(w, action.seat)
        end_turn(w, rng)
    elif phase is KEEP and isinstance(action, Keep):
        round_end.keep(w, seat, action)
        w.queue = w.queue[1:]
        if not w.queue:
            close_round(w, rng)
    elif phase is APPOINT and isinstance(action, Appoint):
        round_end.appoint(w, seat, action)
        w.queue = ()
        start_round(w, action.seat, rng)
    else:
        raise AssertionError(f"{action!r} reached phase {phase}")  # legality was checked before


def begin_turn(w: Work, rng: Rng) -> None:
    """Refill the hands and ask every trader holding cards (clockwise from the sheriff's left) to
    pack; a seat with an empty hand sits the turn out."""
    dealing.refill(w, rng)
    w.emit("turn", round=w.round + 1, turn=w.turn + 1, sheriff=w.sheriff)
    order = w.clockwise((w.sheriff + 1) % w.seats)[:-1]
    w.traders = tuple(s for s in order if len(w.player(s).hand) > 0)
    w.phase, w.selected, w.negotiation = PACK, (), None
    if not w.traders:
        end_turn(w, rng)


def after_check(w: Work, control: Control, rng: Rng) -> None:
    """After an inspection: the extra control (5-6 seats, token unused), the seizure (token
    unused), or the end of the turn; each only while an unchecked suitcase is left."""
    sheriff = w.player(w.sheriff)
    w.negotiation = None
    left = inspection.unchecked(w)
    if control is INSPECTION and sheriff.extra_control_token and left:
        w.phase = PHASE_EXTRA_CONTROL
    elif sheriff.seizure_token and left:
        w.phase = SEIZE
    else:
        end_turn(w, rng)


def end_turn(w: Work, rng: Rng) -> None:
    """Unchecked suitcases go behind their owners; the next sheriff (clockwise) starts, or the
    round ends with the keeping."""
    packing.stow(w)
    w.traders, w.selected, w.negotiation = (), (), None
    if w.turn + 1 < w.turns_per_round:
        w.turn, w.sheriff = w.turn + 1, (w.sheriff + 1) % w.seats
        begin_turn(w, rng)
        return
    w.last_sheriff = w.sheriff
    keeping = round_end.keepers(w)
    if keeping:
        w.phase, w.queue = KEEP, keeping
        return
    close_round(w, rng)


def close_round(w: Work, rng: Rng) -> None:
    """Sell what is behind the suitcases; then the final sale, or the next round's first sheriff."""
    round_end.sell(w)
    if w.round + 1 >= ROUNDS:
        scoring.final_sale(w)
        return
    chooser = round_end.poorest(w)
    if chooser is None:
        last = w.last_sheriff
        assert last is not None
        start_round(w, (last + 1) % w.seats, rng)
        return
    w.phase, w.queue = APPOINT, (chooser,)


def start_round(w: Work, first: Seat, rng: Rng) -> None:
    """The next round begins with `first` as sheriff."""
    w.round, w.turn, w.sheriff, w.last_sheriff = w.round + 1, 0, first, None
    begin_turn(w, rng)
