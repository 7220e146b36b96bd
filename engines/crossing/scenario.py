"""Positions on demand: a public, validated builder of Double Crossing states for tests and bots.

A bot author (or a rule test) describes a position instead of reaching into state fields:

    state = scenario(4, active=2, seats={
        2: SeatSetup(position="O34", money=10, cars={"box": 2}, hand={"stop": 1},
                     contracts=("A1",)),
    })

Unnamed seats keep what the seeded setup dealt them. The builder takes contracts off their
stacks, cars from the yards and crew cards from the piles, after every named seat has put back
what it held, so every card, car and contract is conserved over the whole position, whatever the
seat order; anything impossible (an unknown space, more
cars of a type than the game has, a contract held twice, a negative amount) raises
`ScenarioError` naming it. The result waits at the start of `active`'s turn: its "declare"
decision, the one legal place to begin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from engines.crossing.components import CARS, CREWS, Car, Crew
from engines.crossing.rules import CrossingRules
from engines.crossing.state import CrossingState, Label, Op, Player, Task
from engines.crossing.turns import run
from engines.crossing.work import Work
from engines.driver import MatchDriver
from engines.errors import EngineError
from engines.rng import ScriptedRng


class ScenarioError(EngineError):
    """A scenario that no game could reach: says which value is impossible."""


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """What one seat holds; None keeps what the setup dealt."""

    position: str | None = None
    """The name of the space its locomotive stands on ("START", "O12", "I7")."""
    money: int | None = None
    cars: Mapping[str, int] | None = None
    """Cars per type name; types left out are 0."""
    hand: Mapping[str, int] | None = None
    """Crew cards per type name; types left out are 0."""
    contracts: tuple[str, ...] | None = None
    """Contract ids, in the order taken."""


@dataclass(frozen=True, slots=True)
class _Spec:
    seats: int
    active: int
    chain: int
    setups: Mapping[int, SeatSetup] = field(default_factory=dict)


def scenario(
    seats: int,
    *,
    active: int = 0,
    players: Mapping[int, SeatSetup] | None = None,
    options: Mapping[str, object] | None = None,
    seed: int = 0,
    depot: int | None = None,
    chain: int = 0,
    round: int = 1,
) -> CrossingState:
    """A validated position at the start of `active`'s turn (`chain` extra turns already taken).

    `round` is the round this turn belongs to, counted from `active` (the round cap counts the
    regular turns of every seat).
    """
    rules = CrossingRules()
    state: CrossingState = MatchDriver(rules, seats, dict(options or {}), seed).state
    spec = _Spec(seats, active, chain, dict(players or {}))
    if not 0 <= active < seats:
        raise ScenarioError(f"active seat {active} is not a seat of a {seats}-seat match")
    if not 0 <= chain <= state.settings.extra_turn_cap:
        raise ScenarioError(f"chain {chain} is outside 0..{state.settings.extra_turn_cap}")
    for seat in spec.setups:
        if not 0 <= seat < seats:
            raise ScenarioError(f"seat {seat} is not a seat of a {seats}-seat match")
    state = _apply_setups(state, spec)
    if depot is not None:
        state = replace(state, depot=_amount(depot, "depot"))
    if not 1 <= round <= state.settings.round_cap:
        raise ScenarioError(f"round {round} is outside 1..{state.settings.round_cap}")
    begun = (round - 1) * seats
    state = replace(state, turns=begun, regular_turns=begun)
    check(state)
    fresh = replace(state, tasks=(Task(Op.BEGIN_TURN, active, amount=chain),), prompt=None)
    work = Work(fresh, ScriptedRng())
    run(work)
    built = work.freeze(state.number)
    if built.prompt is None or built.prompt.label is not Label.DECLARE:  # pragma: no cover
        raise ScenarioError("the position does not begin a turn")
    return built


def _amount(value: int, what: str) -> int:
    if value < 0:
        raise ScenarioError(f"{what} must be >= 0, got {value}")
    return value


def _counts(
    named: Mapping[str, int], kinds: tuple[Car, ...] | tuple[Crew, ...], what: str
) -> tuple[int, ...]:
    known = {k.value for k in kinds}
    unknown = sorted(set(named) - known)
    if unknown:
        raise ScenarioError(f"unknown {what} {unknown}; known: {sorted(known)}")
    return tuple(_amount(named.get(k.value, 0), f"{what} {k.value!r}") for k in kinds)


def _apply_setups(state: CrossingState, spec: _Spec) -> CrossingState:
    board = state.board
    names = {s.name: s.index for s in board.spaces}
    players = list(state.players)
    yards = list(state.yards)
    stacks = [list(s) for s in state.stacks]
    pool = [card for pile in state.piles for card in pile]
    held: dict[str, int] = {}
    for seat, player in enumerate(players):
        for index in player.contracts:
            held[board.contract_ids[index]] = seat
    # Every named seat gives its cars and cards back before any seat takes: a seat may then hold
    # what a later seat gives up, whatever the seat order.
    for seat, setup in spec.setups.items():
        if setup.cars is not None:
            yards = [free + had for free, had in zip(yards, players[seat].rack, strict=True)]
        if setup.hand is not None:
            pool += [i for i, count in enumerate(players[seat].hand) for _ in range(count)]
        if setup.contracts is not None:
            for old in players[seat].contracts:
                held.pop(board.contract_ids[old], None)
    for seat, setup in sorted(spec.setups.items()):
        player = players[seat]
        if setup.position is not None:
            if setup.position not in names:
                raise ScenarioError(f"seat {seat}: no space is called {setup.position!r}")
            player = replace(player, position=names[setup.position])
        if setup.money is not None:
            player = replace(player, money=_amount(setup.money, f"seat {seat}'s money"))
        if setup.cars is not None:
            rack = _counts(setup.cars, CARS, "car type")
            for i, car in enumerate(CARS):
                yards[i] -= rack[i]
                if yards[i] < 0:
                    raise ScenarioError(
                        f"seat {seat}: not enough {car.value} cars left in the game"
                    )
            player = replace(player, rack=rack)
        if setup.hand is not None:
            hand = _counts(setup.hand, CREWS, "crew card")
            for i, card in enumerate(CREWS):
                for _ in range(hand[i]):
                    if i not in pool:
                        raise ScenarioError(f"seat {seat}: no {card.value} card left to hold")
                    pool.remove(i)
            player = replace(player, hand=hand)
        if setup.contracts is not None:
            indices = []
            for cid in setup.contracts:
                if cid not in board.contract_ids:
                    raise ScenarioError(f"seat {seat}: no contract has the id {cid!r}")
                if cid in held:
                    raise ScenarioError(f"contract {cid!r} is held by seats {held[cid]} and {seat}")
                held[cid] = seat
                indices.append(board.contract_ids.index(cid))
            player = replace(player, contracts=tuple(indices))
        players[seat] = player
    for stack in stacks:
        stack[:] = [i for i in stack if board.contract_ids[i] not in held]
    for index, loose_id in enumerate(board.contract_ids):
        if loose_id not in held and not any(index in s for s in stacks):
            contract = board.contracts[index]
            company = next(i for i, (c, _) in enumerate(board.companies) if c == contract.company)
            stacks[company].append(index)
    k = len(state.piles)
    piles = tuple(tuple(pool[i::k]) for i in range(k))
    return replace(
        state,
        players=tuple(players),
        yards=tuple(yards),
        stacks=tuple(tuple(s) for s in stacks),
        piles=piles,
    )


def check(state: CrossingState) -> None:
    """Raise `ScenarioError` unless cars, crew cards and contracts are all conserved."""
    board = state.board
    for i, car in enumerate(CARS):
        total = state.yards[i] + sum(p.rack[i] for p in state.players)
        total += sum(cars.count(car) for cars in state.loose)
        if total != board.car_count[i]:
            raise ScenarioError(
                f"{total} {car.value} cars in play, the game has {board.car_count[i]}"
            )
    for i, card in enumerate(CREWS):
        total = state.discard[i] + sum(p.hand[i] for p in state.players)
        total += sum(pile.count(i) for pile in state.piles)
        if total != board.crew_count[i]:
            raise ScenarioError(
                f"{total} {card.value} cards in play, the game has {board.crew_count[i]}"
            )
    seen = [i for p in state.players for i in p.contracts] + [i for s in state.stacks for i in s]
    if sorted(seen) != list(range(len(board.contracts))):
        raise ScenarioError("every contract must be on a stack or held by exactly one seat")
    for seat, player in enumerate(state.players):
        _check_player(seat, player, board.rack)


def _check_player(seat: int, player: Player, rack: int) -> None:
    if player.money < 0:
        raise ScenarioError(f"seat {seat} has negative money {player.money}")
    if sum(player.rack) > rack:
        raise ScenarioError(f"seat {seat} holds {sum(player.rack)} cars; a rack holds {rack}")
