"""The course of a match: the nine rounds (harvest, card phase, action phase) and the end."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from engines.api import Decision, Json, Outcome, Seat, Transition
from engines.frozen import new_transition
from engines.loyang import board, card_phase, scoring, setup
from engines.loyang.action_phase import apply as act
from engines.loyang.action_phase import pay
from engines.loyang.actions import Action, PickOpponent, SetupSow
from engines.loyang.board import K
from engines.loyang.members import ACT, ACTION, CARD, CLOSING, OPPONENT, OVER, ROUND, SETUP, STORE
from engines.loyang.state import LoyangState, Turn
from engines.loyang.work import Work
from engines.rng import Rng


def step(
    state: LoyangState, decision: Decision, actions: Mapping[Seat, Action], rng: Rng
) -> Transition[LoyangState]:
    """`LoyangRules.step`: the deciding seats' actions, then every automatic step after them."""
    w = Work(state, decision.number)
    w.number += 1
    # Paired action turns resolve in turn order; other decisions have one seat.
    if len(actions) == 1:
        ((seat, action),) = actions.items()
        play(w, seat, action, rng)
    else:
        order = [t.seat for t in state.turns if t.seat in actions] or sorted(actions)
        for seat in order:
            play(w, seat, actions[seat], rng)
    advance(w, rng)
    return new_transition(w.freeze(), tuple(w.events))


def play(w: Work, seat: Seat, action: Action, rng: Rng) -> None:
    """One seat's action, by the phase it is played in."""
    if w.phase is SETUP:
        assert isinstance(action, SetupSow)
        setup.sow_home(w, seat, action)
    elif w.phase is OPPONENT:
        assert isinstance(action, PickOpponent)
        pick_opponent(w, action)
    elif w.phase is CARD:
        if w.players[seat].due:
            pay(w, seat, action)
        else:
            card_phase.apply(w, seat, action)
    else:
        act(w, seat, action, rng)


def pick_opponent(w: Work, action: PickOpponent) -> None:
    """Paired variant: pair the first start player with the pick, the second with the rest."""
    seats = len(w.players)
    other = next(s for s in range(seats) if s not in (w.start, w.second, action.seat))
    partners = [0] * seats
    for a, b in ((w.start, action.seat), (w.second, other)):
        partners[a], partners[b] = b, a
    w.partners = tuple(partners)
    w.emit("pick_opponent", seat=w.start, target=action.seat)
    _begin_groups(w, ((w.start, w.second), (action.seat, other)))


def action_order(start: Seat, second: Seat, seats: int) -> tuple[Seat, ...]:
    """Start player, second start player, then the rest clockwise from the start player."""
    order = [start]
    if second not in order:
        order.append(second)
    order += [s for s in ((start + i) % seats for i in range(seats)) if s not in order]
    return tuple(order)


def _begin_groups(w: Work, groups: tuple[tuple[Seat, ...], ...]) -> None:
    w.phase, w.groups, w.turns, w.acted = ACTION, groups, (), frozenset()


def _after_cards(w: Work) -> None:
    if w.config.solo:
        card_phase.finish_grid(w)
    else:
        card_phase.finish(w)
    if w.config.paired:
        w.phase = OPPONENT
    else:
        _begin_groups(w, tuple((s,) for s in action_order(w.start, w.second, len(w.players))))


def harvest(w: Work, rng: Rng) -> None:
    """Phase 1: each seat reveals its next private field, then takes 1 crop from every sown
    field and empties its storehouse onto the cart; the solo game reshuffles once."""
    w.round += 1
    w.turns, w.groups, w.acted, w.partners = (), (), frozenset(), ()
    w.emit("round", round=w.round, start_player=w.start, second_player=w.second)
    emptied = 0
    for seat in range(len(w.players)):
        player = w.edit(seat)
        new: list[Json] = []
        if w.round < K.rounds and player.stack:
            player.fields = (*player.fields, board.private_field(player.stack[0]))
            new.append(player.stack[0])
            player.stack = player.stack[1:]
        sown = [f.crop.wire for f in player.fields if f.crop is not None]
        gone, fields = board.harvest(player, w.round)
        w.discard_cards(gone)
        emptied += len(fields)
        crops: list[Json] = list(sown)
        w.emit("harvest", seat=seat, crops=crops, fields=new, emptied=[f.id for f in fields])
    if w.config.solo and emptied and not w.reshuffled:
        w.deck, w.discard = rng.shuffle(w.deck + w.discard), ()
        w.face_down, w.reshuffled = 0, True
        w.emit("reshuffle", count=len(w.deck))


def begin_round(w: Work, rng: Rng) -> None:
    """Harvest and start the card phase of the next round."""
    harvest(w, rng)
    card_phase.begin(w, rng)


def advance(w: Work, rng: Rng) -> None:
    """Run every automatic step until some seat must decide or the match is over."""
    while True:
        phase = w.phase
        if phase is SETUP:
            if w.queue:
                return
            begin_round(w, rng)
        elif phase is CARD:
            if any(p.due for p in w.players) or not card_phase.is_over(w):
                return
            _after_cards(w)
        elif phase in (ACTION, CLOSING):
            if w.turns:
                return
            if w.groups:
                stage = ACT if phase is ACTION else STORE
                group, w.groups = w.groups[0], w.groups[1:]
                w.turns = tuple(Turn(s, stage) for s in group)
                for seat in group:
                    if stage is ACT:
                        w.emit("turn", seat=seat)
                    scoring.normalize(w, seat)
            elif phase is ACTION and w.config.timing is ROUND:
                w.phase = CLOSING
                w.groups = tuple((s,) for s in action_order(w.start, w.second, len(w.players)))
            elif w.round >= K.rounds:
                w.phase = OVER
                game_over(w)
                return
            else:
                begin_round(w, rng)
        else:
            return


def game_over(w: Work) -> None:
    """Report the final Path positions (after loans) and the cash, the first tie-break."""
    finals: list[Json] = [board.final_position(p) for p in w.players]
    cash: list[Json] = [p.cash for p in w.players]
    if w.config.solo:
        rating = solo_rating(board.final_position(w.players[0]))
        w.emit("game_over", positions=finals, cash=cash, rating=rating)
    else:
        w.emit("game_over", positions=finals, cash=cash)


def outcome(state: LoyangState) -> Outcome | None:
    """Highest final position wins; ties by cash, then crops on fields, cart and storehouse."""
    if state.phase is not OVER:
        return None
    finals = [board.final_position(p) for p in state.players]
    keys = [
        (float(f), float(p.cash), float(board.crops_held(p)))
        for f, p in zip(finals, state.players, strict=True)
    ]
    result = Outcome.from_keys(keys, finals)
    if state.config.solo:  # the seed rates the final score: 17, 18, 19
        result = replace(result, rating=solo_rating(finals[0]))
    return result


def solo_rating(position: int) -> str:
    """The solo game's verdict on a final Path position ("none" below the lowest rating)."""
    earned = [name for floor, name in K.solo_ratings if position >= floor]
    return earned[-1] if earned else "none"
