"""Decisions written in batches: one COPY, or row by row under savepoints when a row is refused.

Every batch is fenced: in its transaction, before writing, it reads (FOR SHARE) the lease epoch
of each match it writes, and a row whose `epoch` is not its match's is refused with `Fenced`.
A takeover bumps the epoch with an UPDATE, which the share lock orders against the batch: the
batch either commits before the takeover, or sees the new epoch (`arena.storage.leases`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
import psycopg.errors
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from arena.storage.errors import Conflict, Fenced, StorageError, translate
from arena.storage.pool import Pool
from arena.storage.rows import DecisionRow
from arena.storage.sql import query

_DECISION_COLUMNS = ("match_id", "number", "label", "joint", "elapsed", "strikes", "epoch")


async def write_decisions(pool: Pool, rows: Sequence[DecisionRow]) -> list[StorageError | None]:
    """Insert `rows` in one transaction; per row, the error that refused it (or None).

    When a row is refused (duplicate number, unknown match) the batch is retried row by row
    under savepoints, so one bad row fails only its own writer. A row identical to one
    already logged counts as written (a retry whose first commit was not acknowledged). A row
    whose epoch is stale is refused with `Fenced` and not written; the others are.
    """
    values = [_decision_params(row) for row in rows]
    async with pool.connection(f"write {len(rows)} decisions") as conn:
        try:
            async with conn.transaction():
                fenced = await _fence(conn, rows)
                async with conn.cursor() as cursor, cursor.copy(query("copy_decisions")) as copy:
                    for params, refused in zip(values, fenced, strict=True):
                        if refused is None:
                            await copy.write_row([params[column] for column in _DECISION_COLUMNS])
            return list(fenced)
        except (psycopg.errors.IntegrityError, psycopg.errors.DataError):
            pass
        outcomes: list[StorageError | None] = []
        async with conn.transaction():  # the epochs again: a takeover may have come meanwhile
            fenced = await _fence(conn, rows)
            for row, params, refused in zip(rows, values, fenced, strict=True):
                if refused is None:
                    outcomes.append(await _insert_decision(conn, row, params))
                else:
                    outcomes.append(refused)
        return outcomes


async def _fence(conn: AsyncConnection[Any], rows: Sequence[DecisionRow]) -> list[Fenced | None]:
    """Share-lock the batch's matches; per row, `Fenced` if its epoch is not its match's.

    A row of an unknown match passes here and is refused by the foreign key (`NotFound`).
    """
    params = {"match_ids": sorted({row.match_id for row in rows})}
    cursor = await conn.execute(query("lock_lease_epochs"), params)
    epochs = {int(match_id): int(epoch) for match_id, epoch in await cursor.fetchall()}
    fenced: list[Fenced | None] = []
    for row in rows:
        current = epochs.get(row.match_id, row.epoch)
        what = f"record decision {row.number} of match {row.match_id}"
        fenced.append(
            None if current == row.epoch else Fenced(what, row.match_id, row.epoch, current)
        )
    return fenced


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
