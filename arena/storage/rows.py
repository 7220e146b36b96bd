"""The rows the storage layer reads and writes: frozen dataclasses and the status enums."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from engines.api import Json, Seat


class MatchStatus(enum.Enum):
    """Where a match is in its life (Postgres enum `match_status`)."""

    PENDING = "pending"
    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


class TournamentStatus(enum.Enum):
    """Where a tournament is in its life (Postgres enum `tournament_status`)."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class RoundStatus(enum.Enum):
    """Where a tournament round is (Postgres enum `round_status`)."""

    PAIRING = "pairing"
    PLAYING = "playing"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class RoundRow:
    """A stored round of a tournament (queries `rounds` and `round_for_update`)."""

    round_no: int
    status: RoundStatus
    started_at: datetime
    finished_at: datetime | None
    dispatched_at: datetime | None
    """When the round's match tasks were last sent (None before the first dispatch)."""

    @property
    def is_finished(self) -> bool:
        """Whether the round is closed (rated, standings updated)."""
        return self.status is RoundStatus.FINISHED


STATUS_ENUMS: Mapping[str, type[enum.Enum]] = {
    "match_status": MatchStatus,
    "tournament_status": TournamentStatus,
    "round_status": RoundStatus,
}
"""Postgres enum type name -> the Python enum its values load as."""


@dataclass(frozen=True, slots=True)
class BotRow:
    """A registered bot (its token hash stays in the database)."""

    id: int
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class TableKey:
    """Where a tournament match is played: the key that makes its creation idempotent."""

    tournament_id: int
    round_no: int
    table_no: int


@dataclass(frozen=True, slots=True)
class SeatResult:
    """How one seat ended a match, as the referee reports it."""

    rank: int
    """1 = best; tied seats share a rank."""
    score: float
    """Game points."""
    strikes: int = 0
    """Timeouts and illegal answers replaced by the default action."""
    forfeited: bool = False
    time_used: timedelta = timedelta(0)
    """Thinking time used over the whole match."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat of a stored match: the bot in it and, once finished, its result."""

    match_id: int
    seat: Seat
    bot_id: int
    bot_name: str
    rank: int | None
    score: float | None
    strikes: int
    forfeited: bool
    time_used: timedelta
    version: str = ""
    """The label of the bot's version that played the seat ('' before migration 0010)."""


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A stored match; `seating` lists its seats in order."""

    id: int
    game: str
    rules_version: int
    options: Mapping[str, Json]
    seats: int
    """How many seats the match has (as in `engines.Record.seats`)."""
    seed: int
    clock: Mapping[str, Json]
    status: MatchStatus
    termination: str | None
    """A `engines.Termination` value once finished, the abort reason once aborted."""
    host: str | None
    """The referee that hosts (or last hosted) the match."""
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    tournament_id: int | None
    round_no: int | None
    table_no: int | None
    rated: bool
    lease_epoch: int
    """The fencing token of the match's lease: bumped by every claim (`arena.storage.leases`)."""
    seating: tuple[SeatRow, ...] = ()

    @property
    def table(self) -> TableKey | None:
        """The tournament table this match plays, if any."""
        if self.tournament_id is None or self.round_no is None or self.table_no is None:
            return None
        return TableKey(self.tournament_id, self.round_no, self.table_no)

    @property
    def bot_ids(self) -> tuple[int, ...]:
        """The bots in seat order."""
        return tuple(seat.bot_id for seat in self.seating)


@dataclass(frozen=True, slots=True)
class DecisionRow:
    """One logged decision: the joint action applied, in wire form, with its timing."""

    match_id: int
    number: int
    """The decision number: the index of this move in `engines.Record.moves`."""
    label: str
    joint: Mapping[Seat, Json]
    """Seat -> wire action."""
    elapsed: Mapping[Seat, timedelta] = field(default_factory=dict)
    """Seat -> time the seat took to answer."""
    strikes: Mapping[Seat, str] = field(default_factory=dict)
    """Seat -> why its answer was replaced by the default action, as `"<kind>: <message>"`
    (`arena.storage.botstats.strike_note`; older rows may lack the kind)."""
    created_at: datetime | None = None
    """Set on rows read back; ignored on write."""
    epoch: int = 0
    """The lease epoch of the host writing the row: refused (`Fenced`) unless it is the match's
    current one. Stored with the row, for audit."""

    def to_db(self) -> dict[str, Any]:
        """The JSON-ready column values (seat keys become strings, times become seconds)."""
        return {
            "match_id": self.match_id,
            "number": self.number,
            "label": self.label,
            "joint": {str(seat): action for seat, action in sorted(self.joint.items())},
            "elapsed": {str(s): t.total_seconds() for s, t in sorted(self.elapsed.items())},
            "strikes": {str(seat): why for seat, why in sorted(self.strikes.items())},
            "epoch": self.epoch,
        }

    @staticmethod
    def from_db(
        *,
        match_id: int,
        number: int,
        label: str,
        joint: Mapping[str, Json],
        elapsed: Mapping[str, float],
        strikes: Mapping[str, str],
        created_at: datetime,
        epoch: int = 0,
    ) -> DecisionRow:
        """Rebuild a row from its columns (a `psycopg.rows.kwargs_row` factory)."""
        return DecisionRow(
            match_id=match_id,
            number=number,
            label=label,
            joint={int(seat): action for seat, action in joint.items()},
            elapsed={int(seat): timedelta(seconds=s) for seat, s in elapsed.items()},
            strikes={int(seat): why for seat, why in strikes.items()},
            created_at=created_at,
            epoch=epoch,
        )
