"""Durable state in Postgres: schema and migrations, the `Database` and the group-committed log."""

from arena.storage.db import Database
from arena.storage.errors import Conflict, Fenced, NotFound, StorageError, Unavailable
from arena.storage.group_commit import DecisionWriter
from arena.storage.rows import (
    BotRow,
    DecisionRow,
    MatchRow,
    MatchStatus,
    RoundStatus,
    SeatResult,
    SeatRow,
    TableKey,
    TournamentStatus,
)

__all__ = [
    "BotRow",
    "Conflict",
    "Database",
    "DecisionRow",
    "DecisionWriter",
    "Fenced",
    "MatchRow",
    "MatchStatus",
    "NotFound",
    "RoundStatus",
    "SeatResult",
    "SeatRow",
    "StorageError",
    "TableKey",
    "TournamentStatus",
    "Unavailable",
]
