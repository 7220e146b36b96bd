"""Storage errors: what failed and for whom, with psycopg's errors translated.

StorageError        anything the storage layer could not do
├── NotFound        a row that should exist does not (match 12, bot 'alice')
├── Conflict        a write collides with stored data (duplicate name, finished match)
│   └── Fenced      the writer's lease epoch is stale: another referee hosts the match now
└── Unavailable     Postgres cannot be reached, or dropped the connection
"""

from __future__ import annotations

import psycopg
import psycopg.errors
import psycopg_pool


class StorageError(Exception):
    """Something the storage layer could not do; the message names what."""


class NotFound(StorageError):
    """A row that should exist does not."""


class Conflict(StorageError):
    """A write collides with stored data."""


class Fenced(Conflict):
    """This host's lease epoch is stale; another referee hosts the match now.

    Every write of a host carries the epoch its claim returned; a takeover bumps the match's
    epoch, so the old host (paused, partitioned) gets this instead of writing. It must stop
    playing the match: its new host resumes it from the decision log.
    """

    def __init__(self, what: str, match_id: int, epoch: int, current: int) -> None:
        # Every value in `args`, so that the error pickles and copies like any other.
        super().__init__(what, match_id, epoch, current)
        self.what = what
        self.match_id = match_id
        self.epoch = epoch
        """The stale epoch the write carried."""
        self.current = current
        """The match's lease epoch now."""

    def __str__(self) -> str:
        return (
            f"{self.what}: fenced, match {self.match_id} is at lease epoch {self.current}, "
            f"not {self.epoch}: another referee hosts it now"
        )


class Unavailable(StorageError):
    """Postgres cannot be reached, or dropped the connection."""


def translate(what: str, exc: Exception) -> StorageError:
    """The `StorageError` for a psycopg (or pool) error raised while doing `what`."""
    detail = _first_line(exc)
    if isinstance(exc, psycopg.errors.UniqueViolation):
        return Conflict(f"{what}: already stored ({detail})")
    if isinstance(exc, psycopg.errors.ForeignKeyViolation):
        return NotFound(f"{what}: a referenced row does not exist ({detail})")
    if isinstance(exc, psycopg.errors.IntegrityError):
        return Conflict(f"{what}: refused by a constraint ({detail})")
    if isinstance(exc, psycopg_pool.PoolTimeout):
        return Unavailable(f"{what}: no database connection available ({detail})")
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return Unavailable(f"{what}: database unavailable ({detail})")
    return StorageError(f"{what}: {type(exc).__name__}: {detail}")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    if isinstance(exc, psycopg.Error) and exc.diag.message_detail:
        line = f"{line}; {exc.diag.message_detail}"
    return line
