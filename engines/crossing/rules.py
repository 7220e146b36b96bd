"""`CrossingRules`: Double Crossing on the engine contract (setup, decisions, views, outcome)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engines.api import ActionSpace, Decision, Json, Option, Outcome, Rules, Seat
from engines.crossing.answer import answer
from engines.crossing.data import BOARDS, CARS, CREWS
from engines.crossing.flow import run
from engines.crossing.legal import legal_actions
from engines.crossing.state import OPTIONS, CrossingState, Op, Settings, Task, TurnState
from engines.crossing.table import Table
from engines.crossing.view import observe, scramble
from engines.crossing.wire import Action, dump_action, parse_action
from engines.rng import Rng


class CrossingRules(Rules[CrossingState, Action, dict[str, Json]]):
    """Double Crossing (Paul J. Gruen, 1988): roll and move, collect cars, fulfil contracts."""

    name = "crossing"
    title = "Double Crossing"
    version = 2
    seat_counts = (2, 3, 4, 5, 6)
    options_schema: ClassVar[tuple[Option, ...]] = OPTIONS
    presets: ClassVar[dict[str, dict[str, Json]]] = {
        "variants": {
            "win_central": "exact",
            "stops_per_turn": 2,
            "duel_tie": "defender",
            "loose_cars_take": "all",
            "villain_choice": "villain",
            "contract_sale_percent": 30,
            "connections_cars": True,
            "extra_turn_cap": 1,
            "round_cap": 40,
        }
    }
    """Non-default option sets the conformance suite also plays."""
    conformance_options: ClassVar[dict[str, Json]] = {"round_cap": 12}
    """Random bots rarely reach six contracts, so random matches run to the cap: 12 rounds keep
    the suite's 1,000 matches affordable; full-length matches run too (see the suite)."""

    def setup(self, seats: int, options: Mapping[str, object], rng: Rng) -> CrossingState:
        """Deal hands, roll the starting cars and the first player; run to the first decision."""
        settings = Settings.of(self.resolve_options(options))
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
            log=(),
            seen=(-1,) * seats,
        )
        t = Table(blank, rng)
        t.seats = seats
        t.position = [board.start] * seats
        t.money = [board.start_money] * seats
        t.rack = [[0] * len(CARS) for _ in range(seats)]
        t.hand = [[0] * len(CREWS) for _ in range(seats)]
        t.contracts = [[] for _ in range(seats)]
        for seat in range(seats):
            t.draw(seat, board.hand, "setup")
        for seat in range(seats):
            for _ in range(2):
                while True:  # a die naming an empty yard is rolled again
                    die = t.die()
                    car = board.face_car[die - 1]
                    t.emit("setup_roll", seat=seat, die=die, car=car.value)
                    if t.yards[CARS.index(car)]:
                        break
                t.gain_from_yard(seat, car, "setup")
        t.tasks.clear()  # nobody holds more than two cars yet
        contenders = list(range(seats))
        while len(contenders) > 1:  # the highest roll starts; tied leaders roll again
            rolls = {s: sum(t.rng.roll(6, 2)) for s in contenders}
            t.emit("first_player_roll", totals=[{"seat": s, "total": r} for s, r in rolls.items()])
            best = max(rolls.values())
            contenders = [s for s in contenders if rolls[s] == best]
        t.then(Task(Op.BEGIN_TURN, contenders[0]))
        run(t)
        return t.freeze(0)

    def decision(self, state: CrossingState) -> Decision | None:
        """The waiting decision, or None once the game is over."""
        if state.prompt is None:
            return None
        return Decision(state.number, frozenset(state.prompt.seats), state.prompt.label.value)

    def legal_actions(self, state: CrossingState, seat: Seat) -> ActionSpace[Action]:
        """The legal actions of `seat` now (see `engines.crossing.legal`)."""
        return legal_actions(state, seat)

    def _apply(
        self, state: CrossingState, decision: Decision, actions: Mapping[Seat, Action], rng: Rng
    ) -> CrossingState:
        t = Table(state, rng)
        answer(t, actions)
        return t.freeze(state.number + 1)

    def observe(self, state: CrossingState, viewer: Seat | None) -> dict[str, Json]:
        """The view of `viewer` (documented in `engines.crossing.wire`)."""
        return observe(state, viewer)

    def outcome(self, state: CrossingState) -> Outcome | None:
        """The winner at Central Station first; then most contracts, then most money."""
        if state.termination is None:
            return None
        keys = [
            (float(s == state.winner), float(len(p.contracts)), float(p.money))
            for s, p in enumerate(state.players)
        ]
        scores = [len(p.contracts) for p in state.players]
        return Outcome.from_keys(keys, scores, state.termination)

    def scramble(self, state: CrossingState, viewer: Seat | None, rng: Rng) -> CrossingState:
        """Re-deal the hands `viewer` may not see and the order of the crew piles."""
        return scramble(state, viewer, rng)

    def parse_action(self, seat: Seat, wire: object) -> Action:
        """Parse a wire action (forms in `engines.crossing.wire`)."""
        return parse_action(seat, wire)

    def dump_action(self, action: Action) -> Json:
        """The wire form of an action."""
        return dump_action(action)

    def dump_observation(self, observation: Any) -> Json:
        """Views are already JSON."""
        return observation  # type: ignore[no-any-return]

    def print_data(self) -> list[str]:
        """Every value of every packaged board, marked sourced or proposed, for `arena rules`."""
        lines = []
        for name, board in BOARDS.items():
            flag = "" if board.sourced else " [NOT SOURCED: proposed data]"
            lines.append(f"board {name}: {board.title}{flag}")
            for p in board.provenance:
                mark = (
                    f"proposed ({p.source})"
                    if p.source.startswith("D")
                    else f"sourced ({p.source})"
                )
                lines.append(f"  {p.path} = {p.value}  [{mark}]")
        return lines
