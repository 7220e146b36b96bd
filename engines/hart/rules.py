"""`HartRules`: Hart an der Grenze on the engine contract, each entry point delegating.

Points the rulebook leaves open follow rules/hart-an-der-grenze.md and research notes H1-H16
(defaults; `strict_count` and `next_sheriff_tie` are the options). The engine adds:
- a seat whose hand is empty (draw and discard piles both exhausted) sits the turn out;
- a counter-proposal must be better for its maker than accepting (the sheriff asks more than the
  standing offer, the trader offers less than the standing demand): it only removes choices that
  "accept" beats;
- an inspected trader without money cannot bribe, so the suitcase opens at once;
- goods sold at a round's end are shown (the bank pays by the printed values), kinds kept are not.
"""

from __future__ import annotations

from collections.abc import Mapping

from engines.api import (
    Decision,
    Json,
    Outcome,
    Rules,
    Seat,
    Transition,
)
from engines.frozen import new_decision, new_transition, one_seat
from engines.hart import legal, scoring, turns, view, wire
from engines.hart.actions import Action
from engines.hart.data import SEAT_COUNTS
from engines.hart.members import OVER, PACK
from engines.hart.state import Config, HartState, Phase
from engines.hart.work import Work
from engines.options import Option
from engines.rng import Rng

_SHERIFF_ACTS = frozenset((Phase.INSPECT, Phase.EXTRA_CONTROL, Phase.SEIZE))
"""The phases in which the sheriff alone decides (`legal.acting`'s last case)."""

_LABELS = {phase: phase.value for phase in Phase}
"""The decision label of each phase (an enum's `.value` is a slow descriptor)."""


class HartRules(Rules[HartState, Action, dict[str, Json]]):
    """Hart an der Grenze (Halaban & Zatz, 2006) for 3-6 seats."""

    name = "hart"
    title = "Hart an der Grenze"
    version = 1
    seat_counts = SEAT_COUNTS
    options_schema = (
        Option(
            "strict_count",
            bool,
            False,
            "H2: no compensation when an honest suitcase holds fewer cards than declared",
        ),
        Option(
            "next_sheriff_tie",
            str,
            "en",
            "tie for poorest: en = tied player first clockwise picks; zh = left of last sheriff",
            choices=("en", "zh"),
        ),
        Option(
            "max_offers",
            int,
            3,
            "bribe proposals each side may make in one negotiation",
            minimum=1,
            maximum=10,
        ),
    )

    # -- the rules ---------------------------------------------------------------------------
    def start(self, seats: int, options: Mapping[str, object], rng: Rng) -> Transition[HartState]:
        """Deal, pick the first sheriff at random, and wait for the first packing."""
        self.check_seats(seats)
        return turns.start_match(seats, Config.from_options(self.resolve_options(options)), rng)

    def decision(self, state: HartState) -> Decision | None:
        """Who must answer now: every trader at once when packing, else one seat."""
        phase = state.phase
        if phase is OVER:
            return None
        # `legal.acting`, as a set, without its tuple where the phase alone says who acts
        if phase is PACK:  # every trader: `acting`'s order does not matter to a set
            seats = frozenset(state.traders)
        elif phase in _SHERIFF_ACTS:
            seats = one_seat(state.sheriff)
        else:
            acting = legal.acting(state)
            seats = one_seat(acting[0]) if len(acting) == 1 else frozenset(acting)
        return new_decision(state.number, seats, _LABELS[phase])

    # The driver calls these once or more per decision: the rule functions themselves, not a
    # method that delegates to them (one call less each).
    legal_actions = staticmethod(legal.legal_actions)
    """The legal actions of `seat`, which must be deciding now."""

    def step(
        self, state: HartState, decision: Decision, actions: Mapping[Seat, Action], rng: Rng
    ) -> Transition[HartState]:
        """Apply the checked joint action of `decision`: the next state and its events."""
        work = Work(state)
        turns.play(work, actions, rng)
        work.number = decision.number + 1
        return new_transition(work.freeze(), tuple(work.events))

    def observe(self, state: HartState, viewer: Seat | None) -> dict[str, Json]:
        """The view of `viewer` (None = public), already in its JSON form."""
        return view.observe(state, viewer)

    def outcome(self, state: HartState) -> Outcome | None:
        """Most money wins; equal money shares the rank."""
        return scoring.ranking(state) if state.phase is OVER else None

    def scramble(self, state: HartState, viewer: Seat | None, rng: Rng) -> HartState:
        """Re-deal every card `viewer` cannot see."""
        return view.scramble(state, viewer, rng)

    # -- wire forms --------------------------------------------------------------------------
    def parse_action(self, seat: Seat, wire_action: object) -> Action:
        """Parse a JSON action (see `engines.hart.wire`)."""
        return wire.parse_action(seat, wire_action)

    dump_action = staticmethod(wire.dump_action)
    """The JSON form of an action (a rule function, see `legal_actions`)."""

    def dump_observation(self, observation: dict[str, Json]) -> Json:
        """The JSON form of a view: `observe` builds it fresh in that form."""
        return observation
