"""The mutable working copy of a `LoyangState` that one step edits in place, frozen on return.

`step` (and `start`) thaw the state into a `Work`, the rule functions change it as the rulebook
reads ("pay 2, place the card"), `emit` collects the events with their audiences, and `freeze`
builds the next immutable `LoyangState`. Players are copied on their first write, so a step
shares every board it did not touch with the state before it. A `Work` never escapes a step.
"""

from __future__ import annotations

from typing import Final

from engines.api import Event, Json, Seat
from engines.frozen import event, setters
from engines.loyang.cards import Counts
from engines.loyang.state import (
    Casual,
    Config,
    Dummy,
    Field,
    Helper,
    LoyangState,
    Phase,
    Player,
    Regular,
    Stall,
    Turn,
)


class PlayerWork:
    """A mutable copy of one `Player`, made when a step first changes that player."""

    __slots__ = (
        "cart",
        "cash",
        "casuals",
        "due",
        "fields",
        "hand",
        "helpers",
        "loans",
        "position",
        "regulars",
        "shop",
        "stack",
        "stalls",
        "store",
        "upgraded",
    )

    def __init__(self, p: Player) -> None:
        self.cash = p.cash
        self.loans = p.loans
        self.position = p.position
        self.upgraded = p.upgraded
        self.cart: Counts = p.cart
        self.store: Counts = p.store
        self.shop: Counts = p.shop
        self.fields: tuple[Field, ...] = p.fields
        self.stack: tuple[str, ...] = p.stack
        self.stalls: tuple[Stall, ...] = p.stalls
        self.helpers: tuple[Helper, ...] = p.helpers
        self.regulars: tuple[Regular, ...] = p.regulars
        self.casuals: tuple[Casual, ...] = p.casuals
        self.hand: tuple[str, ...] = p.hand
        self.due = p.due

    def freeze(self) -> Player:
        """The immutable player."""
        p = object.__new__(Player)
        (set_cash, set_loans, set_position, set_upgraded, set_cart, set_store, set_shop, set_fields,
         set_stack, set_stalls, set_helpers, set_regulars, set_casuals, set_hand,
         set_due) = _PLAYER_SETTERS  # fmt: skip
        set_cash(p, self.cash)
        set_loans(p, self.loans)
        set_position(p, self.position)
        set_upgraded(p, self.upgraded)
        set_cart(p, self.cart)
        set_store(p, self.store)
        set_shop(p, self.shop)
        set_fields(p, self.fields)
        set_stack(p, self.stack)
        set_stalls(p, self.stalls)
        set_helpers(p, self.helpers)
        set_regulars(p, self.regulars)
        set_casuals(p, self.casuals)
        set_hand(p, self.hand)
        set_due(p, self.due)
        return p


Board = Player | PlayerWork
"""A player's board to read, frozen or being edited."""


class Work:
    """Every field of `LoyangState`, mutable; `players` mixes untouched and edited players."""

    __slots__ = (
        "_shared",
        "acted",
        "config",
        "courtyard",
        "current",
        "deck",
        "discard",
        "dummy",
        "event_number",
        "events",
        "face_down",
        "grid",
        "groups",
        "number",
        "opened",
        "out",
        "partners",
        "phase",
        "picks",
        "players",
        "queue",
        "reshuffled",
        "round",
        "second",
        "start",
        "turns",
    )

    def __init__(self, state: LoyangState, event_number: int = -1) -> None:
        self.number = state.number
        self.config: Config = state.config
        self.round = state.round
        self.phase: Phase = state.phase
        self.players: list[Player | PlayerWork] = list(state.players)
        self._shared: tuple[Player, ...] | None = state.players
        """The state's players while none has been edited: the next state shares them."""
        self.deck: tuple[str, ...] = state.deck
        self.discard: tuple[str, ...] = state.discard
        self.face_down = state.face_down
        self.courtyard: tuple[str, ...] = state.courtyard
        self.start: Seat = state.start
        self.second: Seat = state.second
        self.queue: tuple[Seat, ...] = state.queue
        self.current: Seat = state.current
        self.opened = state.opened
        self.out: tuple[Seat, ...] = state.out
        self.grid: tuple[str | None, ...] = state.grid
        self.picks = state.picks
        self.dummy: Dummy | None = state.dummy
        self.partners: tuple[Seat, ...] = state.partners
        self.groups: tuple[tuple[Seat, ...], ...] = state.groups
        self.turns: tuple[Turn, ...] = state.turns
        self.acted: frozenset[Seat] = state.acted
        self.reshuffled = state.reshuffled
        self.event_number = event_number
        """The number events get: the decision being applied, -1 at setup."""
        self.events: list[Event] = []

    def edit(self, seat: Seat) -> PlayerWork:
        """The player in `seat`, for writing (copied on the first write)."""
        p = self.players[seat]
        if isinstance(p, PlayerWork):
            return p
        work = PlayerWork(p)
        self.players[seat] = work
        self._shared = None
        return work

    def turn_of(self, seat: Seat) -> Turn | None:
        """The action turn of `seat`, if it is taking one."""
        for turn in self.turns:
            if turn.seat == seat:
                return turn
        return None

    def set_turn(self, turn: Turn) -> None:
        """Replace the turn in progress of `turn.seat`."""
        turns = self.turns
        if len(turns) == 1 and turns[0].seat == turn.seat:  # the common case, no generator
            self.turns = (turn,)
        else:
            self.turns = tuple(turn if t.seat == turn.seat else t for t in turns)

    def discard_cards(self, cards: tuple[str, ...]) -> None:
        """Put `cards` face up on the action discard pile."""
        if cards:
            self.discard += cards

    def start_round_for(self, seat: Seat) -> int:
        """The first window round of a regular customer placed now (next round once acted)."""
        return self.round + 1 if seat in self.acted else self.round

    def emit(self, kind: str, audience: tuple[Seat, ...] | None = None, **data: Json) -> None:
        """Report one event of the step under way; `audience` None means everyone."""
        seen_by = None if audience is None else frozenset(audience)
        self.events.append(event(self.event_number, kind, seen_by, data))

    def freeze(self) -> LoyangState:
        """The immutable state this working copy now describes."""
        s = object.__new__(LoyangState)
        (set_number, set_config, set_round, set_phase, set_players, set_deck, set_discard,
         set_face_down, set_courtyard, set_start, set_second, set_queue, set_current, set_opened,
         set_out, set_grid, set_picks, set_dummy, set_partners, set_groups, set_turns, set_acted,
         set_reshuffled) = _STATE_SETTERS  # fmt: skip
        set_number(s, self.number)
        set_config(s, self.config)
        set_round(s, self.round)
        set_phase(s, self.phase)
        shared = self._shared
        if shared is None:
            shared = tuple([p.freeze() if isinstance(p, PlayerWork) else p for p in self.players])
        set_players(s, shared)
        set_deck(s, self.deck)
        set_discard(s, self.discard)
        set_face_down(s, self.face_down)
        set_courtyard(s, self.courtyard)
        set_start(s, self.start)
        set_second(s, self.second)
        set_queue(s, self.queue)
        set_current(s, self.current)
        set_opened(s, self.opened)
        set_out(s, self.out)
        set_grid(s, self.grid)
        set_picks(s, self.picks)
        set_dummy(s, self.dummy)
        set_partners(s, self.partners)
        set_groups(s, self.groups)
        set_turns(s, self.turns)
        set_acted(s, self.acted)
        set_reshuffled(s, self.reshuffled)
        return s


_PLAYER_SETTERS: Final = setters(
    Player,
    "cash",
    "loans",
    "position",
    "upgraded",
    "cart",
    "store",
    "shop",
    "fields",
    "stack",
    "stalls",
    "helpers",
    "regulars",
    "casuals",
    "hand",
    "due",
)
_STATE_SETTERS: Final = setters(
    LoyangState,
    "number",
    "config",
    "round",
    "phase",
    "players",
    "deck",
    "discard",
    "face_down",
    "courtyard",
    "start",
    "second",
    "queue",
    "current",
    "opened",
    "out",
    "grid",
    "picks",
    "dummy",
    "partners",
    "groups",
    "turns",
    "acted",
    "reshuffled",
)
"""`Player(...)` and `LoyangState(...)`, cheaper (`engines.frozen`)."""
