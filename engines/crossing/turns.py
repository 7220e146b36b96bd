"""The turn sequence: answering a decision, then running pending tasks until the next one.

A turn is queued as tasks (`state.Op`): begin, (villain), roll or buy, move, land, carry out the
space, end. `run` pops them one by one; a rule that needs a choice asks (`Work.ask`) and the
match waits for that decision; `answer` applies it through the rule that asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from engines.api import Decision, Seat, Transition
from engines.crossing import cards, contracts, money, moves, spaces
from engines.crossing.actions import Action
from engines.crossing.decisions import Answer
from engines.crossing.members import BEGIN_TURN, DECLARE, TURN_LIMIT
from engines.crossing.records import new_task
from engines.crossing.state import CrossingState, Label, Op, Task
from engines.crossing.work import Work
from engines.frozen import new_transition
from engines.rng import Rng


def step(
    state: CrossingState, decision: Decision, actions: Mapping[Seat, Action], rng: Rng
) -> Transition[CrossingState]:
    """`CrossingRules.step`: apply the checked answers, then run the rules to the next decision."""
    w = Work(state, rng)
    answer(w, actions)
    run(w)
    return new_transition(w.freeze(state.number + 1), tuple(w.events))


def run(w: Work) -> None:
    """Run pending tasks until a decision is needed or the match is over."""
    while w.prompt is None and w.termination is None:
        if not w.tasks:  # pragma: no cover - every turn queues the next one
            raise AssertionError("the rules ran out of work with the match still running")
        task = w.tasks.pop()
        HANDLERS[task.op](w, task)


def answer(w: Work, actions: Mapping[Seat, Action]) -> None:
    """Apply the checked answers to the waiting decision through the rule that asked."""
    prompt = w.prompt
    assert prompt is not None
    w.prompt = None
    if prompt.label is DECLARE:
        cards.answer_declare(w, prompt, actions)
    else:
        ANSWERS[prompt.label](w, prompt, actions[prompt.seats[0]])


def begin_turn(w: Work, task: Task) -> None:
    """Begin a turn (at the round cap the game ends, part B); ask the declare decision."""
    regular = task.amount == 0
    if regular and w.regular_turns >= w.settings.round_cap * w.seats:
        w.end_game(TURN_LIMIT)
        return
    w.turns += 1
    w.regular_turns += int(regular)
    w.new_turn(task.seat, task.amount)
    w.emit("turn", seat=task.seat, turn=w.turns, extra=task.amount)
    # One simultaneous decision before the roll: the active seat declares its plan while every
    # other seat holding any card may play Stop. Hand sizes are public, so who is asked reveals
    # nothing about who holds a Stop, and nobody sees the others' choices before making theirs.
    hand = w.hand  # (`Work.hand_size`, inlined)
    others = tuple([s for s in w.left_of(task.seat) if sum(hand[s])])
    w.ask_seats(DECLARE, (task.seat, *others), task.seat)


def end_turn(w: Work, task: Task) -> None:
    """An occupied space, ROLL AGAIN or an Engineer earns one more turn, up to the chain cap."""
    turn = w.turn
    room = turn.chain < w.settings.extra_turn_cap and not turn.lost and not turn.ends
    earned = turn.occupied or turn.roll_again
    used = cards.settle_engineer(w, room, earned)
    if room and (earned or used):
        w.emit("extra_turn", seat=turn.active)
        w.then(new_task(BEGIN_TURN, turn.active, amount=turn.chain + 1))
    else:
        w.then(new_task(BEGIN_TURN, (turn.active + 1) % w.seats))


HANDLERS: Final[dict[Op, Callable[[Work, Task], None]]] = {
    Op.BEGIN_TURN: begin_turn,
    Op.VILLAIN: cards.villain,
    Op.ROLL: moves.roll,
    Op.BUY_CARDS: spaces.offer_crew_cards,
    Op.MOVE: moves.move,
    Op.LAND: moves.land,
    Op.EFFECT: spaces.carry_out,
    Op.RACK_CHECK: money.rack_check,
    Op.DEBT: money.debt,
    Op.END_TURN: end_turn,
}
"""The rule that carries out each pending task."""
assert set(HANDLERS) == set(Op)

ANSWERS: Final[dict[Label, Answer]] = {
    Label.VILLAIN_CAR: cards.answer_villain_car,
    Label.DISCARD: moves.answer_discard,
    Label.TRAIN_SHOP: spaces.answer_train_shop,
    Label.ROUTE: moves.answer_route,
    Label.BUY_CREW: spaces.answer_buy_crew,
    Label.YARD: spaces.answer_yard,
    Label.TRADE: contracts.answer_trade,
    Label.CONNECTIONS: contracts.answer_connections,
    Label.DERAIL_CAR: spaces.answer_derail_car,
    Label.DOUBLE_CROSS: contracts.answer_double_cross,
    Label.ROUNDHOUSE: spaces.answer_roundhouse,
    Label.TOWER_TARGET: spaces.answer_tower_target,
    Label.TOWER_SPACE: spaces.answer_tower_space,
    Label.DISSATISFIED: contracts.answer_dissatisfied,
    Label.RACK_LIMIT: money.answer_rack_limit,
    Label.RAISE_CASH: money.answer_raise_cash,
}
"""The rule that applies the answer to each single-seat decision (declare: `cards`)."""
assert set(ANSWERS) == set(Label) - {Label.DECLARE}
