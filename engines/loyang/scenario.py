"""Positions on demand: a public, validated builder of Loyang states for tests and bots.

A bot author (or a rule test) describes a position instead of reaching into state fields:

    state = scenario(2, phase="action", round=3, active=0, players={
        0: SeatSetup(cash=0, cart={"bean": 1}, helpers=("H01",),
                     fields=(FieldSetup("home", "wheat", 5),)),
    }, deck_top=("CF01", "H02"))

Every action card a seat holds (common fields, stalls, helpers, customers, hand) is taken out of
the shuffled deck, private fields out of the seat's face-down stack, so every card is conserved;
`deck_top` puts named deck cards on top, in order. Anything impossible (an unknown or repeated
card, a card in the wrong place, a crop a field may not hold, more crops than it holds, a
storehouse over capacity, negative money, a phase the builder cannot start) raises
`ScenarioError` naming it. Phases: "action" (the seat `active` takes its action turn, the others
follow clockwise) and "card" (the card phase with `active` to play; `courtyard` lies open; solo:
`grid` lays out the 3x4 grid row by row, None for an empty place).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from engines.errors import EngineError
from engines.loyang import board
from engines.loyang.cards import NO_CROPS, CardKind, Counts, Crop, FieldDef
from engines.loyang.data import DATA
from engines.loyang.rules import LoyangRules
from engines.loyang.state import (
    Casual,
    Field,
    Helper,
    LoyangState,
    Phase,
    Player,
    Regular,
    Stall,
    Turn,
)
from engines.rng import HashRng

PHASES = ("action", "card")
"""The phases a scenario can start in."""


class ScenarioError(EngineError):
    """A scenario that no game could reach: says which value is impossible."""


@dataclass(frozen=True, slots=True)
class FieldSetup:
    """A field: "home", a private field id (P3a..P6b) or a common field card (CF01..)."""

    id: str
    crop: str | None = None
    """The crop sown on it; None for an unsown field."""
    count: int | None = None
    """Crops left on it; None for a full field."""


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """What one seat holds; a seat left out of `players` holds only its unsown home field."""

    cash: int = 10
    loans: int = 0
    position: int = 1
    """The Path of Prosperity space."""
    upgraded: bool = False
    cart: Mapping[str, int] = field(default_factory=dict)
    store: Mapping[str, int] = field(default_factory=dict)
    fields: tuple[FieldSetup, ...] = ()
    """The fields in the row; the home field is unsown unless listed."""
    stalls: tuple[str, ...] = ()
    """Market stalls, full."""
    helpers: tuple[str, ...] = ()
    regulars: tuple[str, ...] = ()
    """Regular customers, their window opening this round, nothing delivered."""
    unhappy: tuple[str, ...] = ()
    """Regular customers (of `regulars`) whose satisfaction marker shows bad."""
    casuals: tuple[str, ...] = ()
    hand: tuple[str, ...] = ()
    """Action cards in hand (card phase only)."""


def scenario(
    seats: int,
    *,
    phase: str = "action",
    round: int = 2,
    active: int = 0,
    players: Mapping[int, SeatSetup] | None = None,
    options: Mapping[str, object] | None = None,
    seed: int = 0,
    deck_top: tuple[str, ...] = (),
    courtyard: tuple[str, ...] = (),
    grid: tuple[str | None, ...] = (),
) -> LoyangState:
    """A validated position in `phase` of `round`, with `active` to act."""
    if phase not in PHASES:
        raise ScenarioError(f"phase {phase!r} is not one of {list(PHASES)}")
    if not 1 <= round <= DATA.constants.rounds:
        raise ScenarioError(f"round {round} is outside 1..{DATA.constants.rounds}")
    state = LoyangRules().setup(seats, dict(options or {}), HashRng(seed, "scenario"))
    if not 0 <= active < seats:
        raise ScenarioError(f"active seat {active} is not a seat of a {seats}-seat match")
    if grid and not (phase == "card" and state.config.solo):
        raise ScenarioError("a grid belongs to the solo card phase")
    setups = dict(players or {})
    for seat in setups:
        if not 0 <= seat < seats:
            raise ScenarioError(f"seat {seat} is not a seat of a {seats}-seat match")
    deck = list(state.deck)
    built = []
    for seat, player in enumerate(state.players):
        built.append(_player(seat, player, setups.get(seat, SeatSetup()), deck, round))
    if grid:
        deck += [c for c in state.grid if c is not None]
        size = DATA.constants.solo_grid_columns * len(DATA.constants.solo_row_costs)
        if len(grid) != size:
            raise ScenarioError(f"the solo grid holds {size} places, not {len(grid)}")
        for card in grid:
            if card is not None:
                _take(deck, card, "the grid")
    for card in (*courtyard, *deck_top):
        _take(deck, card, "the courtyard" if card in courtyard else "deck_top")
    if phase == "action" and courtyard:
        raise ScenarioError("the courtyard is empty in the action phase")
    if phase == "action" and any(p.hand for p in built):
        raise ScenarioError("hands are empty in the action phase")
    order = tuple((active + k) % seats for k in range(seats))
    state = replace(
        state,
        round=round,
        players=tuple(built),
        deck=(*deck_top, *deck),
        queue=(),
        start=active,
        second=order[1 % seats],
    )
    if phase == "action":
        state = replace(
            state,
            phase=Phase.ACTION,
            turns=(Turn(active),),
            groups=tuple((s,) for s in order[1:]),
            acted=frozenset(),
        )
    elif state.config.solo:
        state = replace(state, phase=Phase.CARD, grid=grid or state.grid, picks=0)
    else:
        if not any(p.hand for p in built):
            raise ScenarioError("the card phase needs cards in some seat's hand")
        state = replace(
            state, phase=Phase.CARD, current=active, courtyard=courtyard, opened=bool(courtyard)
        )
    check(state)
    return state


def _take(deck: list[str], card: str, where: str) -> None:
    if card not in DATA.cards:
        raise ScenarioError(f"{where}: no action card has the id {card!r}")
    if card not in deck:
        raise ScenarioError(f"{where}: card {card!r} is used twice")
    deck.remove(card)


def _counts(named: Mapping[str, int], what: str) -> Counts:
    out = list(NO_CROPS)
    for name, n in named.items():
        crop = next((c for c in Crop if c.wire == name), None)
        if crop is None:
            raise ScenarioError(f"{what}: unknown crop {name!r}; known: {[c.wire for c in Crop]}")
        if n < 0:
            raise ScenarioError(f"{what}: {name} must be >= 0, got {n}")
        out[crop] = n
    return tuple(out)


def _kind(card: str, kind: CardKind, where: str) -> None:
    if card not in DATA.cards:
        raise ScenarioError(f"{where}: no action card has the id {card!r}")
    if DATA.cards[card].kind is not kind:
        raise ScenarioError(f"{where}: {card!r} is a {DATA.cards[card].kind.value}")


def _player(seat: int, player: Player, setup: SeatSetup, deck: list[str], round_: int) -> Player:
    where = f"seat {seat}"
    for value, name in ((setup.cash, "cash"), (setup.loans, "loans")):
        if value < 0:
            raise ScenarioError(f"{where}: {name} must be >= 0, got {value}")
    if setup.position < DATA.constants.path_floor:
        raise ScenarioError(f"{where}: position {setup.position} is below the Path's first space")
    stack = list(player.stack)
    home = player.fields[0]
    fields: list[Field] = []
    for spec in setup.fields:
        if spec.id == "home":
            base = home
        elif spec.id in stack:
            stack.remove(spec.id)
            base = board.private_field(spec.id)
        else:
            _kind(spec.id, CardKind.COMMON_FIELD, f"{where} fields")
            _take(deck, spec.id, f"{where} fields")
            definition = DATA.cards[spec.id]
            assert isinstance(definition, FieldDef)
            base = Field(definition.id, definition.size, definition.allowed, common=True)
        fields.append(_sown(base, spec, where))
    if not any(f.id == "home" for f in fields):
        fields.insert(0, home)
    ids = [f.id for f in fields]
    if len(set(ids)) != len(ids):
        raise ScenarioError(f"{where}: a field is listed twice: {ids}")
    for card in (*setup.stalls, *setup.helpers, *setup.regulars, *setup.casuals, *setup.hand):
        _take(deck, card, where)
    strangers = sorted(set(setup.unhappy) - set(setup.regulars))
    if strangers:
        raise ScenarioError(f"{where}: unhappy customers {strangers} are not among its regulars")
    for cards, kind in (
        (setup.stalls, CardKind.MARKET_STALL),
        (setup.helpers, CardKind.HELPER),
        (setup.regulars, CardKind.REGULAR_CUSTOMER),
        (setup.casuals, CardKind.CASUAL_CUSTOMER),
    ):
        for card in cards:
            _kind(card, kind, f"{where} {kind.value}")
    return replace(
        player,
        cash=setup.cash,
        loans=setup.loans,
        position=setup.position,
        upgraded=setup.upgraded,
        cart=_counts(setup.cart, f"{where} cart"),
        store=_counts(setup.store, f"{where} storehouse"),
        fields=tuple(fields),
        stack=tuple(stack),
        stalls=tuple(Stall(c, board.stall_def(c).stock) for c in setup.stalls),
        helpers=tuple(Helper(c) for c in setup.helpers),
        regulars=tuple(
            Regular(c, start=round_, good=c not in setup.unhappy) for c in setup.regulars
        ),
        casuals=tuple(Casual(c) for c in setup.casuals),
        hand=setup.hand,
    )


def _sown(base: Field, spec: FieldSetup, where: str) -> Field:
    if spec.crop is None:
        if spec.count:
            raise ScenarioError(f"{where}: field {spec.id} is unsown but holds {spec.count}")
        return base
    crop = next((c for c in Crop if c.wire == spec.crop), None)
    if crop is None or crop not in base.allowed:
        allowed = sorted(c.wire for c in base.allowed)
        raise ScenarioError(f"{where}: field {spec.id} may hold {allowed}, not {spec.crop!r}")
    count = base.size if spec.count is None else spec.count
    if not 1 <= count <= base.size:
        raise ScenarioError(f"{where}: field {spec.id} holds 1..{base.size} crops, not {count}")
    return replace(base, crop=crop, count=count)


def check(state: LoyangState) -> None:
    """Raise `ScenarioError` unless every action card is in exactly one place."""
    places: list[str] = [*state.deck, *state.discard, *state.courtyard]
    places += [c for c in state.grid if c is not None]
    if state.dummy is not None:
        places += [s.card for s in state.dummy.stalls]
        places += [r.card for r in state.dummy.regulars] + [c.card for c in state.dummy.casuals]
    for seat, player in enumerate(state.players):
        places += list(player.hand)
        items: list[Stall | Helper | Regular | Casual] = [
            *player.stalls,
            *player.helpers,
            *player.regulars,
            *player.casuals,
        ]
        for item in items:
            places += [item.card, *([item.under] if item.under else [])]
        for f in player.fields:
            places += [f.id] if f.common else []
            places += [f.under] if f.under else []
        if sum(player.store) > board.capacity(player):
            raise ScenarioError(
                f"seat {seat}: the storehouse holds {board.capacity(player)}, not "
                f"{sum(player.store)}"
            )
    if sorted(places) != sorted(DATA.cards):
        repeated = sorted({c for c in places if places.count(c) > 1})
        missing = sorted(set(DATA.cards) - set(places))
        raise ScenarioError(f"action cards not conserved: repeated {repeated}, missing {missing}")
