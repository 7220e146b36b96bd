"""Storage errors: what failed and for whom, with psycopg's errors translated.

StorageError        anything the storage layer could not do
├── NotFound        a row that should exist does not (match 12, bot 'alice')
├── Conflict        a write collides with stored data (duplicate name, finished match)
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
