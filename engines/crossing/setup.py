"""Setting up a match (Setup 1-5) and choosing the first player (Play)."""

from __future__ import annotations

from engines.crossing.cards import draw
from engines.crossing.components import CARS, CREWS
from engines.crossing.data import BOARDS
from engines.crossing.state import CrossingState, Op, Settings, Task, TurnState
from engines.crossing.work import Work
from engines.rng import Rng


def deal(settings: Settings, seats: int, rng: Rng) -> Work:
    """Yards, crew piles, contract stacks, money and hands (Setup 1-4), cars, the first player."""
    board = BOARDS[settings.board]
    deck = list(rng.shuffle([i for i, n in enumerate(board.crew_count) for _ in range(n)]))
    blank = CrossingState(
        settings=settings,
        number=-1,
        players=(),
        yards=board.car_count,
        stacks=tuple(
            tuple(c.index for c in board.contracts if c.company == cid)
            for cid, _ in board.companies
        ),
        loose=tuple(() for _ in board.spaces),
        depot=board.depot_start,
        piles=tuple(tuple(deck[k :: board.crew_piles]) for k in range(board.crew_piles)),
        discard=(0,) * len(CREWS),
        turns=0,
        regular_turns=0,
        turn=TurnState(active=0),
        tasks=(),
        prompt=None,
        winner=None,
        termination=None,
    )
    w = Work(blank, rng)
    w.seats = seats
    w.position = [board.start] * seats
    w.money = [board.start_money] * seats
    w.rack = [(0,) * len(CARS) for _ in range(seats)]
    w.hand = [(0,) * len(CREWS) for _ in range(seats)]
    w.contracts = [() for _ in range(seats)]
    for seat in range(seats):
        draw(w, seat, board.hand, "setup")
    starting_cars(w)
    w.then(Task(Op.BEGIN_TURN, first_player(w)))
    return w


def starting_cars(w: Work) -> None:
    """Setup 5: each seat rolls two dice for two cars; a die naming an empty yard is re-rolled."""
    for seat in range(w.seats):
        for _ in range(2):
            while True:
                die = w.die()
                car = w.board.face_car[die - 1]
                w.emit("setup_roll", seat=seat, die=die, car=car.value)
                if w.yards[CARS.index(car)]:
                    break
            w.gain_from_yard(seat, car, "setup")
    w.tasks.clear()  # nobody holds more than two cars yet: no rack check


def first_player(w: Work) -> int:
    """All roll two dice; the highest roll starts; tied leaders roll again (D8)."""
    contenders = list(range(w.seats))
    while len(contenders) > 1:
        rolls = {s: sum(w.rng.roll(6, 2)) for s in contenders}
        w.emit("first_player_roll", totals=[{"seat": s, "total": r} for s, r in rolls.items()])
        best = max(rolls.values())
        contenders = [s for s in contenders if rolls[s] == best]
    return contenders[0]
