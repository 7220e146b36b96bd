"""Positions on demand: a public, validated builder of Hart an der Grenze states for tests and bots.

    state = scenario(4, sheriff=2, round=1, turn=3, players={
        0: SeatSetup(money=12, hand={"statue": 2, "jug": 3}, kept={"cigar": 1}),
    })

The position waits for the packing of turn `turn` of round `round` (both counted from 1), with
`sheriff` as the sheriff. Seats left out keep the hands the seeded deal gave them. Every card a
seat holds (hand, goods kept under the suitcase) comes out of the draw pile, after every named
seat has given back what it held, so the 139 cards are conserved over the whole position; an
unknown good, a hand over five cards, a card the deck no longer has, negative money or a turn
outside the round raises `ScenarioError` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from engines.errors import EngineError
from engines.hart.data import GOOD_BY_NAME, GOODS, HAND_SIZE, ROUNDS, Good
from engines.hart.rules import HartRules
from engines.hart.state import Bag, HartState, Phase
from engines.rng import HashRng


class ScenarioError(EngineError):
    """A scenario that no game could reach: says which value is impossible."""


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """What one seat holds; None keeps what the deal gave it."""

    money: int | None = None
    hand: Mapping[str, int] | None = None
    """Goods cards in hand by name ("jug", "statue"); at most five."""
    kept: Mapping[str, int] | None = None
    """Goods kept face down under the suitcase for the end-of-game sale."""
    seizure_token: bool | None = None
    extra_control_token: bool | None = None


def _bag(named: Mapping[str, int], what: str) -> Bag:
    unknown = sorted(set(named) - set(GOOD_BY_NAME))
    if unknown:
        raise ScenarioError(f"{what}: unknown good(s) {unknown}; known: {sorted(GOOD_BY_NAME)}")
    if any(n < 0 for n in named.values()):
        raise ScenarioError(f"{what}: counts must be >= 0, got {dict(named)}")
    return Bag(tuple(named.get(good.value, 0) for good in GOODS))


def scenario(
    seats: int,
    *,
    sheriff: int = 0,
    round: int = 1,
    turn: int = 1,
    players: Mapping[int, SeatSetup] | None = None,
    options: Mapping[str, object] | None = None,
    seed: int = 0,
) -> HartState:
    """A validated position waiting for the packing of `turn` in `round`."""
    state = HartRules().setup(seats, dict(options or {}), HashRng(seed, "scenario"))
    if not 0 <= sheriff < seats:
        raise ScenarioError(f"sheriff {sheriff} is not a seat of a {seats}-seat match")
    if not 1 <= round <= ROUNDS:
        raise ScenarioError(f"round {round} is outside 1..{ROUNDS}")
    if not 1 <= turn <= state.turns_per_round:
        raise ScenarioError(f"turn {turn} is outside 1..{state.turns_per_round}")
    setups = dict(players or {})
    for seat in setups:
        if not 0 <= seat < seats:
            raise ScenarioError(f"seat {seat} is not a seat of a {seats}-seat match")
    pool = list(state.deck)
    built = list(state.players)
    # Every named seat gives its old cards back before any seat takes: a seat may then hold
    # cards that a later seat gives up, whatever the seat order.
    for seat, setup in setups.items():
        pool += list(built[seat].hand) if setup.hand is not None else []
        pool += list(built[seat].under) if setup.kept is not None else []
    for seat, setup in sorted(setups.items()):
        player = built[seat]
        where = f"seat {seat}"
        if setup.money is not None:
            if setup.money < 0:
                raise ScenarioError(f"{where}: money must be >= 0, got {setup.money}")
            player = replace(player, money=setup.money)
        if setup.hand is not None:
            hand = _bag(setup.hand, f"{where} hand")
            if len(hand) > HAND_SIZE:
                raise ScenarioError(f"{where}: a hand holds at most {HAND_SIZE} cards")
            player = replace(player, hand=hand)
        if setup.kept is not None:
            player = replace(player, under=_bag(setup.kept, f"{where} kept"))
        for good in [*(player.hand if setup.hand is not None else ())]:
            _take(pool, good, where)
        for good in [*(player.under if setup.kept is not None else ())]:
            _take(pool, good, where)
        if setup.seizure_token is not None:
            player = replace(player, seizure_token=setup.seizure_token)
        if setup.extra_control_token is not None:
            player = replace(player, extra_control_token=setup.extra_control_token)
        built[seat] = player
    order = tuple((sheriff + k) % seats for k in range(1, seats))
    state = replace(
        state,
        players=tuple(built),
        deck=tuple(pool),
        sheriff=sheriff,
        round=round - 1,
        turn=turn - 1,
        phase=Phase.PACK,
        traders=tuple(s for s in order if len(built[s].hand) > 0),
    )
    check(state)
    return state


def _take(pool: list[Good], good: Good, where: str) -> None:
    if good not in pool:
        raise ScenarioError(f"{where}: no {good.value} card is left to hold")
    pool.remove(good)


def check(state: HartState) -> None:
    """Raise `ScenarioError` unless the match holds exactly the full deck of 139 cards."""
    if state.total_cards() != Bag.full_deck():
        raise ScenarioError(f"cards not conserved: {state.total_cards()} in play")
    if not state.traders:
        raise ScenarioError("no trader holds a card: there is nothing to pack")
