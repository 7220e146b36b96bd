"""The private mutable working copy of a `HartState` that one step of play edits, frozen on return.

`dataclasses.replace` on a 16-field state for every small change cost about half of a decision.
A step instead copies the state into a `Work` once, edits it in place (players are copied on
first write), collects the step's events with `emit`, and `freeze` builds the next immutable
`HartState`. A `Work` never escapes `HartRules.step` (or `turns.start_match`).
"""

from __future__ import annotations

from engines.api import Event, Json, Seat
from engines.frozen import event, setters
from engines.hart.data import Good
from engines.hart.state import Bag, Config, Declaration, HartState, Negotiation, Phase, Player


class PlayerWork:
    """A mutable copy of one `Player`, made when a step first changes that player."""

    __slots__ = (
        "behind",
        "declaration",
        "extra_control_token",
        "hand",
        "money",
        "seizure_token",
        "suitcase",
        "under",
    )

    def __init__(self, p: Player) -> None:
        self.money = p.money
        self.hand = p.hand
        self.suitcase = p.suitcase
        self.declaration: Declaration | None = p.declaration
        self.behind = p.behind
        self.under = p.under
        self.seizure_token = p.seizure_token
        self.extra_control_token = p.extra_control_token

    def freeze(self) -> Player:
        """The immutable player."""
        p = object.__new__(Player)
        (set_money, set_hand, set_suitcase, set_declaration, set_behind, set_under, set_seizure,
         set_extra) = _PLAYER_SETTERS  # fmt: skip
        set_money(p, self.money)
        set_hand(p, self.hand)
        set_suitcase(p, self.suitcase)
        set_declaration(p, self.declaration)
        set_behind(p, self.behind)
        set_under(p, self.under)
        set_seizure(p, self.seizure_token)
        set_extra(p, self.extra_control_token)
        return p


class Work:
    """Every field of `HartState`, mutable; `players` mixes untouched and edited players."""

    __slots__ = (
        "_shared",
        "config",
        "deck",
        "discard",
        "events",
        "last_sheriff",
        "negotiation",
        "number",
        "phase",
        "players",
        "queue",
        "round",
        "selected",
        "sheriff",
        "traders",
        "turn",
    )

    def __init__(self, state: HartState) -> None:
        self.config: Config = state.config
        self.number = state.number
        self.phase: Phase = state.phase
        self.round = state.round
        self.turn = state.turn
        self.sheriff: Seat = state.sheriff
        self.players: list[Player | PlayerWork] = list(state.players)
        self._shared: tuple[Player, ...] | None = state.players
        """The state's players while no player has been edited: the next state shares them."""
        self.deck: tuple[Good, ...] = state.deck
        self.discard: Bag = state.discard
        self.traders: tuple[Seat, ...] = state.traders
        self.selected: tuple[Seat, ...] = state.selected
        self.negotiation: Negotiation | None = state.negotiation
        self.queue: tuple[Seat, ...] = state.queue
        self.last_sheriff: Seat | None = state.last_sheriff
        self.events: list[Event] = []
        """The events of this step, numbered by the decision being applied (-1 at setup)."""

    @property
    def seats(self) -> int:
        """The number of seats."""
        return len(self.players)

    @property
    def turns_per_round(self) -> int:
        """Every seat is sheriff once per round, twice with three seats."""
        return 2 * self.seats if self.seats == 3 else self.seats

    def player(self, seat: Seat) -> Player | PlayerWork:
        """The player in `seat`, for reading."""
        return self.players[seat]

    def edit(self, seat: Seat) -> PlayerWork:
        """The player in `seat`, for writing (copied on the first write)."""
        p = self.players[seat]
        if isinstance(p, PlayerWork):
            return p
        work = PlayerWork(p)
        self.players[seat] = work
        self._shared = None
        return work

    def emit(self, kind: str, audience: tuple[Seat, ...] | None = None, **data: Json) -> None:
        """Report one more event of this step, seen by `audience` (None = everyone)."""
        seen_by = None if audience is None else frozenset(audience)
        self.events.append(event(self.number, kind, seen_by, data))

    def clockwise(self, start: Seat) -> tuple[Seat, ...]:
        """Every seat once, clockwise, starting at `start`."""
        seats = len(self.players)
        return tuple((start + i) % seats for i in range(seats))

    def freeze(self) -> HartState:
        """The immutable state this working copy now describes."""
        s = object.__new__(HartState)
        (set_config, set_number, set_phase, set_round, set_turn, set_sheriff, set_players, set_deck,
         set_discard, set_traders, set_selected, set_negotiation, set_queue,
         set_last_sheriff) = _STATE_SETTERS  # fmt: skip
        set_config(s, self.config)
        set_number(s, self.number)
        set_phase(s, self.phase)
        set_round(s, self.round)
        set_turn(s, self.turn)
        set_sheriff(s, self.sheriff)
        shared = self._shared
        if shared is None:
            shared = tuple([p.freeze() if isinstance(p, PlayerWork) else p for p in self.players])
        set_players(s, shared)
        set_deck(s, self.deck)
        set_discard(s, self.discard)
        set_traders(s, self.traders)
        set_selected(s, self.selected)
        set_negotiation(s, self.negotiation)
        set_queue(s, self.queue)
        set_last_sheriff(s, self.last_sheriff)
        return s


# The next state is built through its slots' setters: cheaper than the frozen `__init__`, which
# sets every field through `object.__setattr__` (see `engines.frozen`).
_PLAYER_SETTERS = setters(
    Player,
    "money",
    "hand",
    "suitcase",
    "declaration",
    "behind",
    "under",
    "seizure_token",
    "extra_control_token",
)
_STATE_SETTERS = setters(
    HartState,
    "config",
    "number",
    "phase",
    "round",
    "turn",
    "sheriff",
    "players",
    "deck",
    "discard",
    "traders",
    "selected",
    "negotiation",
    "queue",
    "last_sheriff",
)
