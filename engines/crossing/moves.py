"""Rolling and moving: the dice, doubles, routes, arriving (and winning there), dropped cars."""

from __future__ import annotations

from collections.abc import Sequence

from engines.api import ListedSpace, Seat
from engines.crossing.actions import Action, Discard, PickSpace
from engines.crossing.cards import play_card
from engines.crossing.components import CARS, CREWS, Board, Kind
from engines.crossing.decisions import listed, pick_space, unanswered
from engines.crossing.members import (
    BOX,
    COMPLETED,
    DISCARD,
    EFFECT,
    LAND,
    MOVE,
    RACK_CHECK,
    ROUTE,
    START,
)
from engines.crossing.records import new_task
from engines.crossing.state import CrossingState, Prompt, Task
from engines.crossing.work import Work, as_json, put


def roll(w: Work, task: Task) -> None:
    """Roll two dice (one when slowed by Railroad Crew), then move by the sum; doubles cost."""
    seat, crew = w.turn.active, w.turn.crew
    dice = [w.die()] if crew.slow else [w.die(), w.die()]
    w.emit("rolled", seat=seat, dice=as_json(dice), crew=crew.value)
    w.then(new_task(MOVE, seat, amount=sum(dice), flag=crew.reverse))
    if len(dice) == 2 and dice[0] == dice[1]:
        double(w, seat, dice[0])


def double(w: Work, seat: Seat, face: int) -> None:
    """Double six takes a box car; any other double discards a crew card (none with no hand)."""
    if face == 6:
        w.gain_from_yard(seat, BOX, "double_six")
    elif w.hand_size(seat):
        w.ask(DISCARD, seat)


def discard_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Any crew card type of the roller's hand (D16: the roller's choice)."""
    return listed([Discard(card) for i, card in enumerate(CREWS) if state.players[seat].hand[i]])


def answer_discard(w: Work, prompt: Prompt, action: Action) -> None:
    """Discard the chosen card face up."""
    if isinstance(action, Discard):
        play_card(w, prompt.seats[0], action.card, "doubles")
    else:
        unanswered(prompt, action)


def paths(
    board: Board, start: int, steps: int, reverse: bool
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Where a move of `steps` can end, and which of those ends pass Central Station on the way."""
    key = (start, steps, reverse)
    found = board.routes.get(key)
    if found is None:
        links = board.prev if reverse else board.ahead
        frontier = {(start, False)}
        for _ in range(steps):
            frontier = {
                (n, passed or n == board.central) for at, passed in frontier for n in links[at]
            }
        ends = tuple(sorted({at for at, _ in frontier}))
        found = board.routes[key] = ends, tuple(sorted({at for at, passed in frontier if passed}))
    return found


def move(w: Work, task: Task) -> None:
    """Move by the roll; where a junction makes the end a choice, the mover picks the route."""
    ends, passes = paths(w.board, w.position[task.seat], task.amount, task.flag)
    wins = len(w.contracts[task.seat]) >= w.board.win_contracts and not w.settings.win_exact
    if passes and wins:  # the way through Central Station ends the game there and then
        arrive(w, task.seat, w.board.central, True, True, "moved")
    elif len(ends) == 1:
        arrive(w, task.seat, ends[0], ends[0] in passes, True, "moved")
    elif ends:
        w.ask(ROUTE, task.seat, spaces=ends, passes=passes)


def route_options(state: CrossingState, prompt: Prompt, seat: Seat) -> ListedSpace[Action]:
    """Every space the move can end on."""
    return listed([pick_space(s) for s in prompt.spaces])


def answer_route(w: Work, prompt: Prompt, action: Action) -> None:
    """Arrive at the chosen end."""
    if isinstance(action, PickSpace):
        seat = prompt.seats[0]
        arrive(w, seat, action.space, action.space in prompt.passes, True, "moved")
    else:
        unanswered(prompt, action)


def arrive(w: Work, seat: Seat, space: int, passed_central: bool, own: bool, how: str) -> None:
    """Put a locomotive on `space`; 6+ contracts at Central Station win (End); else land."""
    w.place(seat, space)
    w.emit("moved", seat=seat, to=space, how=how)
    reached = space == w.board.central or (passed_central and not w.settings.win_exact)
    if reached and len(w.contracts[seat]) >= w.board.win_contracts:
        w.end_game(COMPLETED, seat)
        return
    w.then(new_task(LAND, seat, own=own))


def land(w: Work, task: Task) -> None:
    """Stopping where another locomotive stands earns a turn; take dropped cars; carry out."""
    seat = task.seat
    if task.own and w.occupied(seat):
        w.set_turn(occupied=True)
    took = bool(w.loose[w.position[seat]])
    w.then(new_task(EFFECT, seat, own=task.own, flag=took))
    take_loose(w, seat)


def take_loose(w: Work, seat: Seat) -> bool:
    """On arrival, take the oldest dropped car here (all of them, by option; D12)."""
    here = w.position[seat]
    stack = w.loose[here]
    if not stack:
        return False
    taken = stack if w.settings.take_all_loose else stack[:1]
    w.loose = put(w.loose, here, stack[len(taken) :])
    for car in taken:
        w.add_cars(seat, CARS.index(car), 1)
        w.emit("car_picked_up", seat=seat, car=car.value, space=here)
    w.then(new_task(RACK_CHECK, seat))
    return True


def teleport_targets(board: Board, exclude: Sequence[Kind]) -> tuple[int, ...]:
    """The spaces a locomotive may be sent to (never START, never the excluded kinds)."""
    banned = {START, *exclude}
    return tuple(s.index for s in board.spaces if s.kind not in banned)


def rolls_double(w: Work, seat: Seat, why: str) -> bool:
    """Roll two dice up to `special_rolls` times; True at the first double (no movement; D17)."""
    for attempt in range(1, w.board.special_rolls + 1):
        dice = [w.die(), w.die()]
        w.emit("special_roll", seat=seat, why=why, attempt=attempt, dice=as_json(dice))
        if dice[0] == dice[1]:
            return True
    return False
