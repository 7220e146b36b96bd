"""Who decides now and their legal actions, per decision label (the `ActionSpace` builders).

The match driver asks for a seat's legal actions once per decision. Three builders are still
memoized, on the card counts they depend on, because the same hand, suitcase or pile recurs across
decisions and matches and building its space (every sub-multiset as a hashed action) is dear.
Measured over 30 random matches per seat count (22,404 decisions, `bench/engines.py` play, on a
machine where a decision then cost ~50 us): each comment gives the hit rate, the build cost and
the time saved per decision. The other builders saved under 1 us per decision and are not cached.
"""

from __future__ import annotations

import functools

from engines.api import ActionSpace, ListedSpace, Seat
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
from engines.hart.data import KEEP_PER_ROUND, LEGAL_GOODS, MAX_PACK
from engines.hart.inspection import unchecked
from engines.hart.members import (
    APPOINT,
    BRIBE,
    DECLARE,
    INSPECT,
    JUG,
    KEEP,
    OVER,
    PACK,
    PHASE_EXTRA_CONTROL,
    SEIZE,
)
from engines.hart.state import Bag, HartState, bags_up_to
from engines.hart.wire import dump_action
from engines.spaces import IntRange, MixedSpace


def acting(state: HartState) -> tuple[Seat, ...]:
    """The seats that must answer now, sorted: every trader when packing, else one seat."""
    phase = state.phase
    if phase is OVER:
        return ()
    if phase is PACK:
        return tuple(sorted(state.traders))
    if phase in (DECLARE, KEEP, APPOINT):
        return state.queue[:1]
    if phase is BRIBE:
        talk = state.negotiation
        assert talk is not None
        last = talk.last()
        if last is None or last[0] == state.sheriff:
            return (talk.seat,)
        return (state.sheriff,)
    return (state.sheriff,)


def deciding(state: HartState, seat: Seat) -> bool:
    """Whether `seat` is one of `acting(state)`, without building that tuple."""
    phase = state.phase
    if phase is PACK:
        return seat in state.traders
    if phase is DECLARE or phase is KEEP or phase is APPOINT:
        queue = state.queue
        return bool(queue) and queue[0] == seat
    if phase is OVER:
        return False
    if phase is BRIBE:
        return seat in acting(state)
    return seat == state.sheriff  # inspecting, extra control, seizing: `acting`'s last case


def legal_actions(state: HartState, seat: Seat) -> ActionSpace[Action]:
    """The legal actions of `seat`, which must be deciding now."""
    phase = state.phase
    if not deciding(state, seat):
        raise ValueError(f"seat {seat} is not deciding now ({phase.value})")
    p = state.player(seat)
    if phase is PACK:
        return packings(p.hand.counts)
    if phase is DECLARE:
        return declarations(p.suitcase.counts)
    if phase is INSPECT:
        return targets(Inspect, state.traders)
    if phase is PHASE_EXTRA_CONTROL:
        return targets(Inspect, unchecked(state))
    if phase is SEIZE:
        return targets(Seize, unchecked(state))
    if phase is BRIBE:
        return bribes(state, seat)
    if phase is KEEP:
        return keepings(p.behind.counts)
    assert phase is APPOINT and state.last_sheriff is not None
    return appointments(state.seats, (state.last_sheriff + 1) % state.seats)


# 96% hits on 235 hands; a build costs ~137 us: saves ~39 us per decision (dropping it made
# Hart ~45% slower).
@functools.lru_cache(maxsize=1024)
def packings(hand: tuple[int, ...]) -> ListedSpace[Action]:
    """1-5 cards of the hand; the default is one card of the cheapest kind held."""
    packs = _actions_up_to(Pack, MAX_PACK)
    return ListedSpace(tuple([packs[i] for i in Bag(hand).sub_bag_positions(1, MAX_PACK)]))


_DECLARATIONS = tuple(Declare(n, g) for n in range(1, MAX_PACK + 1) for g in LEGAL_GOODS)


# 95% hits on 354 suitcases; a build costs ~11 us: saves ~3 us per decision.
@functools.lru_cache(maxsize=1024)
def declarations(suitcase: tuple[int, ...]) -> ListedSpace[Action]:
    """Any count 1-5 of any legal good; the default names the suitcase's size and first kind."""
    bag = Bag(suitcase)
    kind = next((g for g in bag if g.is_legal), JUG)
    honest_looking = Declare(min(max(len(bag), 1), MAX_PACK), kind)
    return ListedSpace(_DECLARATIONS, default_index=_DECLARATIONS.index(honest_looking))


# The spaces below are cheap to build but recur across decisions and matches (the same traders,
# the same bargaining bounds): kept, they are built once and their answers checked by a set.
@functools.lru_cache(maxsize=1024)
def targets(kind: type[Inspect] | type[Seize], seats: tuple[int, ...]) -> ListedSpace[Action]:
    """Nobody (the default), or one of `seats`: an inspection, extra control or seizure."""
    return ListedSpace((Pass(), *(kind(s) for s in seats)))


def bribes(state: HartState, seat: Seat) -> MixedSpace[Action]:
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
    return bargains(standing is not None, low, high, may_counter)


def _amount_of(action: object) -> int | None:
    return action.amount if isinstance(action, Offer) else None


@functools.lru_cache(maxsize=4096)
def bargains(standing: bool, low: int, high: int, may_counter: bool) -> MixedSpace[Action]:
    """Open, accept (when a proposal stands), and offers low..high (when a counter is allowed)."""
    listed: tuple[Action, ...] = (Open(), Accept()) if standing else (Open(),)
    ranges: tuple[IntRange[Action], ...] = ()
    if may_counter:
        ranges = (IntRange(low, high, Offer, _amount_of, "amount"),)
    return MixedSpace(listed, ranges, dump=dump_action)


# 14% hits, but a build costs ~124 us (up to 84 sub-multisets): saves ~1.2 us per decision.
@functools.lru_cache(maxsize=4096)
def keepings(behind: tuple[int, ...]) -> ListedSpace[Action]:
    """0-3 cards from behind the suitcase; the default keeps nothing."""
    keeps = _actions_up_to(Keep, KEEP_PER_ROUND)
    return ListedSpace(tuple([keeps[i] for i in Bag(behind).sub_bag_positions(0, KEEP_PER_ROUND)]))


@functools.cache
def _actions_up_to(kind: type[Pack] | type[Keep], high: int) -> tuple[Action, ...]:
    """`kind(bag)` for each of `bags_up_to(high)`, built once: a fresh space shares them."""
    return tuple(kind(bag) for bag in bags_up_to(high))


@functools.lru_cache(maxsize=64)
def appointments(seats: int, default: int) -> ListedSpace[Action]:
    """Any seat as next round's first sheriff; the default is `default`."""
    return ListedSpace(tuple(Appoint(s) for s in range(seats)), default_index=default)
