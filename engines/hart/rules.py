"""`HartRules`: Hart an der Grenze on the engine contract (decisions, legal actions, views, result).

The course of play is in `play`, the views in `view`, the JSON forms (documented) in `wire`.
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

import functools
from collections.abc import Mapping

from engines.api import (
    ActionSpace,
    Decision,
    Json,
    ListedSpace,
    Option,
    Outcome,
    Rules,
    Seat,
    Transition,
)
from engines.hart import play, wire
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
from engines.hart.goods import LEGAL_GOODS, Bag, Good
from engines.hart.state import KEEP_PER_ROUND, MAX_PACK, Config, HartState, Phase
from engines.hart.view import acting, observe, scramble
from engines.hart.work import Work
from engines.rng import Rng
from engines.spaces import IntRange, MixedSpace


def _amount_of(action: object) -> int | None:
    return action.amount if isinstance(action, Offer) else None


_DECLARATIONS = tuple(Declare(n, g) for n in range(1, MAX_PACK + 1) for g in LEGAL_GOODS)


@functools.lru_cache(maxsize=1024)
def _packings(hand: tuple[int, ...]) -> ListedSpace[Action]:
    """1-5 cards of the hand; the default is one card of the cheapest kind held."""
    return ListedSpace(tuple(Pack(b) for b in Bag(hand).sub_bags(1, MAX_PACK)))


@functools.lru_cache(maxsize=1024)
def _declarations(suitcase: tuple[int, ...]) -> ListedSpace[Action]:
    """Any count 1-5 of any legal good; the default names the suitcase's size and first kind."""
    bag = Bag(suitcase)
    kind = next((g for g in bag if g.is_legal), Good.JUG)
    honest_looking = Declare(min(max(len(bag), 1), MAX_PACK), kind)
    return ListedSpace(_DECLARATIONS, default_index=_DECLARATIONS.index(honest_looking))


@functools.lru_cache(maxsize=1024)
def _targets(kind: type[Inspect] | type[Seize], seats: tuple[int, ...]) -> ListedSpace[Action]:
    """Nobody (the default), or one of `seats`: an inspection, extra control or seizure."""
    return ListedSpace((Pass(), *(kind(s) for s in seats)))


@functools.lru_cache(maxsize=64)
def _appointments(seats: int, default: int) -> ListedSpace[Action]:
    """Any seat as next round's first sheriff; the default is `default`."""
    return ListedSpace(tuple(Appoint(s) for s in range(seats)), default_index=default)


@functools.lru_cache(maxsize=4096)
def _bargains(standing: bool, low: int, high: int, may_counter: bool) -> MixedSpace[Action]:
    """Open, accept (when a proposal stands), and offers low..high (when a counter is allowed)."""
    listed: tuple[Action, ...] = (Open(), Accept()) if standing else (Open(),)
    ranges: tuple[IntRange[Action], ...] = ()
    if may_counter:
        ranges = (IntRange(low, high, Offer, _amount_of, "amount"),)
    return MixedSpace(listed, ranges, dump=wire.dump_action)


_LABELS = {phase: phase.value for phase in Phase}
"""The decision label of each phase (an enum's `.value` is a slow descriptor)."""


@functools.lru_cache(maxsize=4096)
def _keepings(behind: tuple[int, ...]) -> ListedSpace[Action]:
    """0-3 cards from behind the suitcase; the default keeps nothing."""
    return ListedSpace(tuple(Keep(b) for b in Bag(behind).sub_bags(0, KEEP_PER_ROUND)))


class HartRules(Rules[HartState, Action, dict[str, Json]]):
    """Hart an der Grenze (Halaban & Zatz, 2006) for 3-6 seats."""

    name = "hart"
    title = "Hart an der Grenze"
    version = 1
    seat_counts = (3, 4, 5, 6)
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
        return play.new_match(seats, Config.from_options(self.resolve_options(options)), rng)

    def decision(self, state: HartState) -> Decision | None:
        """Who must answer now: every trader at once when packing, else one seat."""
        phase = state.phase
        if phase is Phase.OVER:
            return None
        seats = state.traders if phase is Phase.PACK else acting(state)
        return Decision(state.number, frozenset(seats), _LABELS[phase])

    def legal_actions(self, state: HartState, seat: Seat) -> ActionSpace[Action]:
        """The legal actions of `seat`, which must be deciding now."""
        phase = state.phase
        if seat not in (state.traders if phase is Phase.PACK else acting(state)):
            raise ValueError(f"seat {seat} is not deciding now ({state.phase.value})")
        p = state.player(seat)
        if phase is Phase.PACK:
            return _packings(p.hand.counts)
        if phase is Phase.DECLARE:
            return _declarations(p.suitcase.counts)
        if phase is Phase.INSPECT:
            return _targets(Inspect, state.traders)
        if phase is Phase.EXTRA_CONTROL:
            return _targets(Inspect, play.unchecked(state))
        if phase is Phase.SEIZE:
            return _targets(Seize, play.unchecked(state))
        if phase is Phase.BRIBE:
            return self._bribes(state, seat)
        if phase is Phase.KEEP:
            return _keepings(p.behind.counts)
        assert phase is Phase.APPOINT and state.last_sheriff is not None
        return _appointments(state.seats, (state.last_sheriff + 1) % state.seats)

    def _bribes(self, state: HartState, seat: Seat) -> MixedSpace[Action]:
        """Open, accept the standing proposal, or counter (while offers last).

        Amounts run 1..the trader's money. A counter-proposal must be better for its maker than
        accepting: the sheriff asks more than the standing offer, the trader offers less than
        the standing demand (anything else is beaten by "accept").
        """
        talk = state.negotiation
        assert talk is not None
        low, high = 1, state.player(talk.seat).money
        standing = talk.last()
        if standing is not None and seat == state.sheriff:
            low = standing[1] + 1
        elif standing is not None:
            high = min(high, standing[1] - 1)
        may_counter = talk.count_by(seat) < state.config.max_offers and low <= high
        return _bargains(standing is not None, low, high, may_counter)

    def step(
        self, state: HartState, decision: Decision, actions: Mapping[Seat, Action], rng: Rng
    ) -> Transition[HartState]:
        """Apply the checked joint action of `decision`: the next state and its events."""
        work = Work(state)
        if state.phase is Phase.PACK:
            play.pack(work, {s: a for s, a in actions.items() if isinstance(a, Pack)})
        else:
            ((seat, action),) = actions.items()
            play.step(work, seat, action, rng)
        work.number = decision.number + 1
        return Transition(work.freeze(), tuple(work.events))

    def observe(self, state: HartState, viewer: Seat | None) -> dict[str, Json]:
        """The view of `viewer` (None = public), already in its JSON form."""
        return observe(state, viewer)

    def outcome(self, state: HartState) -> Outcome | None:
        """Most money wins; equal money shares the rank."""
        if state.phase is not Phase.OVER:
            return None
        money = [p.money for p in state.players]
        return Outcome.from_keys(money, money)

    def scramble(self, state: HartState, viewer: Seat | None, rng: Rng) -> HartState:
        """Re-deal every card `viewer` cannot see."""
        return scramble(state, viewer, rng)

    # -- wire forms --------------------------------------------------------------------------
    def parse_action(self, seat: Seat, wire_action: object) -> Action:
        """Parse a JSON action (see `engines.hart.wire`)."""
        return wire.parse_action(seat, wire_action)

    def dump_action(self, action: Action) -> Json:
        """The JSON form of an action."""
        return wire.dump_action(action)

    def dump_observation(self, observation: dict[str, Json]) -> Json:
        """The JSON form of a view: `observe` builds it fresh in that form."""
        return observation
