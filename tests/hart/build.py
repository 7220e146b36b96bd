"""Helpers that build Hart an der Grenze states directly and play scripted turns on them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from engines import HashRng, IllegalAction, Transition
from engines.driver import MatchDriver
from engines.hart import HartRules
from engines.hart.actions import Action, Declare, Pack
from engines.hart.data import Good
from engines.hart.state import Bag, HartState, Phase

RULES = HartRules()
J, M, S = Good.JUG, Good.MARACAS, Good.SOMBRERO
C, T, X = Good.CIGAR, Good.TEQUILA, Good.STATUE


def at_pack(
    seats: int = 4,
    sheriff: int = 0,
    hands: Mapping[int, Sequence[Good]] | None = None,
    money: Mapping[int, int] | None = None,
    options: Mapping[str, object] | None = None,
    seed: int = 0,
) -> HartState:
    """Turn 1 of a fresh match, waiting for the packing, with the hands and money given.

    Cards for the hands are taken out of the draw pile, so all 139 cards stay accounted for.
    """
    state = MatchDriver(RULES, seats, dict(options or {}), seed).state
    pool = list(state.deck) + [g for p in state.players for g in p.hand]
    players = list(state.players)
    wanted = dict(hands or {})
    for seat in range(seats):
        hand = list(wanted.get(seat, ()))
        for good in hand:
            pool.remove(good)
        players[seat] = replace(players[seat], hand=Bag.of(hand))
    for seat in range(seats):  # seats not named get 5 cards off the top
        if seat not in wanted:
            players[seat] = replace(players[seat], hand=Bag.of(pool[:5]))
            pool = pool[5:]
    for seat, amount in (money or {}).items():
        players[seat] = replace(players[seat], money=amount)
    order = [(sheriff + i) % seats for i in range(1, seats)]
    traders = tuple(s for s in order if len(players[s].hand))
    return replace(
        state,
        players=tuple(players),
        deck=tuple(pool),
        sheriff=sheriff,
        traders=traders,
        phase=Phase.PACK,
    )


def played(
    state: HartState, joint: Mapping[int, Action], rng_seed: int = 0
) -> Transition[HartState]:
    """Apply one joint action through the full legality checks: the next state and its events."""
    decision = RULES.decision(state)
    assert decision is not None, "the match is over"
    for seat, action in joint.items():
        RULES.check_answer(state, seat, decision.number, action)
    missing = sorted(decision.seats - set(joint))
    if missing:
        raise IllegalAction(f"seat(s) {missing} must answer", seat=missing[0])
    return RULES.step(state, decision, dict(joint), HashRng(rng_seed, f"test:{state.number}"))


def act(state: HartState, joint: Mapping[int, Action], rng_seed: int = 0) -> HartState:
    """Apply one joint action through the full legality checks."""
    return played(state, joint, rng_seed).state


def solo_played(state: HartState, action: Action) -> Transition[HartState]:
    """Apply the action of the single seat deciding now: the next state and its events."""
    decision = RULES.decision(state)
    assert decision is not None and len(decision.seats) == 1, decision
    (seat,) = decision.seats
    return played(state, {seat: action})


def solo(state: HartState, action: Action) -> HartState:
    """Apply the action of the single seat deciding now."""
    return solo_played(state, action).state


def pack_and_declare(
    state: HartState,
    suitcases: Mapping[int, Sequence[Good]],
    declarations: Mapping[int, tuple[int, Good]],
) -> HartState:
    """Pack the given suitcases (others pack their first card) and declare (others: honest-ish)."""
    decision = RULES.decision(state)
    assert decision is not None and decision.label == "pack"
    joint: dict[int, Action] = {}
    for seat in decision.seats:
        goods = suitcases.get(seat)
        joint[seat] = (
            Pack(Bag.of(goods)) if goods is not None else RULES.legal_actions(state, seat).default()
        )
    state = act(state, joint)
    while state.phase is Phase.DECLARE:
        seat = state.queue[0]
        if seat in declarations:
            count, good = declarations[seat]
            action: Action = Declare(count, good)
        else:
            action = RULES.legal_actions(state, seat).default()
        state = solo(state, action)
    return state
