"""`CrossingRules`: Double Crossing on the engine contract; each entry point delegates."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from engines.api import Json, Outcome, Rules, Seat, Transition
from engines.crossing import legal, turns
from engines.crossing.actions import Action
from engines.crossing.data import provenance_lines
from engines.crossing.setup import deal
from engines.crossing.state import OPTIONS, CrossingState, Settings
from engines.crossing.turns import run
from engines.crossing.view import observe, scramble
from engines.crossing.wire import dump_action, parse_action
from engines.frozen import new_transition
from engines.options import Option
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

    def start(
        self, seats: int, options: Mapping[str, object], rng: Rng
    ) -> Transition[CrossingState]:
        """Deal hands, roll the starting cars and the first player; run to the first decision."""
        w = deal(Settings.of(self.resolve_options(options)), seats, rng)
        run(w)
        return new_transition(w.freeze(0), tuple(w.events))

    # The driver calls these once or more per decision: the rule functions themselves, not a
    # method that delegates to them (one call less each).
    decision = staticmethod(legal.decision)
    """The waiting decision, or None once the game is over (see `engines.crossing.legal`)."""
    legal_actions = staticmethod(legal.legal_actions)
    """The legal actions of `seat` now (see `engines.crossing.legal`)."""
    step = staticmethod(turns.step)
    """Apply the checked answers, then run the rules to the next decision (`turns`)."""

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

    dump_action = staticmethod(dump_action)
    """The wire form of an action (a rule function, see `legal_actions`)."""

    def dump_observation(self, observation: Any) -> Json:
        """Views are already JSON."""
        return observation  # type: ignore[no-any-return]

    def print_data(self) -> list[str]:
        """Every value of every packaged board, marked sourced or proposed, for `arena rules`."""
        return provenance_lines()
