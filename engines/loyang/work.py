"""The mutable working copy of a `LoyangState` that one step edits in place, frozen on return.

`step` (and `start`) thaw the state into a `Work`, the rule functions change it as the rulebook
reads ("pay 2, place the card"), `emit` collects the events with their audiences, and `freeze`
builds the next immutable `LoyangState`. Players are copied on their first write, so a step
shares every board it did not touch with the state before it. A `Work` never escapes a step.
"""

from __future__ import annotations

from engines.api import Event, Json, Seat
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
        return Player(  # positionally, in field order: keywords cost more
            self.cash,
            self.loans,
            self.position,
            self.upgraded,
            self.cart,
            self.store,
            self.shop,
            self.fields,
            self.stack,
            self.stalls,
            self.helpers,
            self.regulars,
            self.casuals,
            self.hand,
            self.due,
        )


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
        self.turns = tuple(turn if t.seat == turn.seat else t for t in self.turns)

    def discard_cards(self, cards: tuple[str, ...]) -> None:
        """Put `cards` face up on the action discard pile."""
        if cards:
            self.discard += cards

    def start_round_for(self, seat: Seat) -> int:
        """The first window round of a regular customer placed now (next round once acted)."""
        return self.round + 1 if seat in self.acted else self.round

    def emit(self, kind: str, audience: tuple[Seat, ...] | None = None, **data: Json) -> None:
        """Report one event of the step under way; `audience` None means everyone."""
        self.events.append(Event.make(self.event_number, kind, audience, **data))

    def freeze(self) -> LoyangState:
        """The immutable state this working copy now describes."""
        return LoyangState(  # positionally, in field order: keywords cost more
            self.number,
            self.config,
            self.round,
            self.phase,
            self._shared or tuple([_frozen(p) for p in self.players]),  # players
            self.deck,
            self.discard,
            self.face_down,
            self.courtyard,
            self.start,
            self.second,
            self.queue,
            self.current,
            self.opened,
            self.out,
            self.grid,
            self.picks,
            self.dummy,
            self.partners,
            self.groups,
            self.turns,
            self.acted,
            self.reshuffled,
        )


def _frozen(p: Player | PlayerWork) -> Player:
    return p.freeze() if isinstance(p, PlayerWork) else p
