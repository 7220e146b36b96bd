"""Decisions written in batches: one COPY, or row by row under savepoints when a row is refused."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
import psycopg.errors
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from arena.storage.errors import Conflict, StorageError, translate
from arena.storage.pool import Pool
from arena.storage.rows import DecisionRow
from arena.storage.sql import query

_DECISION_COLUMNS = ("match_id", "number", "label", "joint", "elapsed", "strikes")


async def write_decisions(pool: Pool, rows: Sequence[DecisionRow]) -> list[StorageError | None]:
    """Insert `rows` in one transaction; per row, the error that refused it (or None).

    When a row is refused (duplicate number, unknown match) the batch is retried row by row
    under savepoints, so one bad row fails only its own writer. A row identical to one
    already logged counts as written (a retry whose first commit was not acknowledged).
    """
    values = [_decision_params(row) for row in rows]
    async with pool.connection(f"write {len(rows)} decisions") as conn:
        try:
            async with (
                conn.transaction(),
                conn.cursor() as cursor,
                cursor.copy(query("copy_decisions")) as copy,
            ):
                for params in values:
                    await copy.write_row([params[column] for column in _DECISION_COLUMNS])
            return [None] * len(rows)
        except (psycopg.errors.IntegrityError, psycopg.errors.DataError):
            pass
        outcomes: list[StorageError | None] = []
        async with conn.transaction():
            for row, params in zip(rows, values, strict=True):
                outcomes.append(await _insert_decision(conn, row, params))
        return outcomes


def _decision_params(row: DecisionRow) -> dict[str, Any]:
    params = row.to_db()
    for column in ("joint", "elapsed", "strikes"):
        params[column] = Jsonb(params[column])
    return params


async def _insert_decision(
    conn: AsyncConnection[Any], row: DecisionRow, params: Mapping[str, Any]
) -> StorageError | None:
    what = f"record decision {row.number} of match {row.match_id}"
    try:
        async with conn.transaction():
            await conn.execute(query("insert_decision"), params)
        return None
    except psycopg.errors.UniqueViolation as exc:
        cursor = await conn.execute(query("decision"), params)
        stored = await cursor.fetchone()
        if stored is not None and (stored[2], stored[3]) == (params["label"], params["joint"].obj):
            return None
        return Conflict(f"{what}: a different decision {row.number} is already logged ({exc})")
    except (psycopg.errors.IntegrityError, psycopg.errors.DataError) as exc:
        return translate(what, exc)
