"""The private mutable working copy of a `HartState` that one step of play edits, frozen on return.

`dataclasses.replace` on a 16-field state for every small change cost about half of a decision.
A step instead copies the state into a `Work` once, edits it in place (players are copied on
first write), collects the step's events with `emit`, and `freeze` builds the next immutable
`HartState`. A `Work` never escapes `HartRules.step` (or `turns.start_match`).
"""

from __future__ import annotations

from engines.api import Event, Json, Seat
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
        return Player(
            money=self.money,
            hand=self.hand,
            suitcase=self.suitcase,
            declaration=self.declaration,
            behind=self.behind,
            under=self.under,
            seizure_token=self.seizure_token,
            extra_control_token=self.extra_control_token,
        )


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
        self.events.append(Event.make(self.number, kind, audience, **data))

    def clockwise(self, start: Seat) -> tuple[Seat, ...]:
        """Every seat once, clockwise, starting at `start`."""
        seats = len(self.players)
        return tuple((start + i) % seats for i in range(seats))

    def freeze(self) -> HartState:
        """The immutable state this working copy now describes."""
        return HartState(
            config=self.config,
            number=self.number,
            phase=self.phase,
            round=self.round,
            turn=self.turn,
            sheriff=self.sheriff,
            players=self._shared or tuple([_frozen(p) for p in self.players]),
            deck=self.deck,
            discard=self.discard,
            traders=self.traders,
            selected=self.selected,
            negotiation=self.negotiation,
            queue=self.queue,
            last_sheriff=self.last_sheriff,
        )


def _frozen(p: Player | PlayerWork) -> Player:
    return p.freeze() if isinstance(p, PlayerWork) else p
