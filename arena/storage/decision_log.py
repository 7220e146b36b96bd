"""Decisions written in batches: one statement, or row by row under savepoints when one is refused.

Every batch is fenced: in its transaction, before writing, it reads (FOR SHARE) the lease epoch
of each match it writes, and a row whose `epoch` is not its match's is refused with `Fenced`.
The fast path does both in one statement (`write_decision_batch`): the rows travel as one JSON
array, so a batch costs the referee one round trip and one `json.dumps`, not a transaction of
five round trips (BEGIN, the fence, COPY, its end, COMMIT) and three JSON dumps per row.
A takeover bumps the epoch with an UPDATE, which the share lock orders against the batch: the
batch either commits before the takeover, or sees the new epoch (`arena.storage.leases`).
"""

from __future__ import annotations

import json
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

_JSON = json.JSONEncoder(allow_nan=False, separators=(",", ":"))
"""Strict JSON, as Postgres reads it: NaN or infinity raise here instead of failing there."""


async def write_decisions(pool: Pool, rows: Sequence[DecisionRow]) -> list[StorageError | None]:
    """Insert `rows` in one transaction; per row, the error that refused it (or None).

    When a row is refused (duplicate number, unknown match) the batch is retried row by row
    under savepoints, so one bad row fails only its own writer. A row identical to one
    already logged counts as written (a retry whose first commit was not acknowledged). A row
    whose epoch is stale is refused with `Fenced` and not written; the others are.
    """
    try:
        text: str | None = _JSON.encode([row.to_db() for row in rows])
    except (ValueError, TypeError):  # a value JSON cannot carry (NaN): the slow path names it
        text = None
    async with pool.connection(f"write {len(rows)} decisions") as conn:
        if text is not None:
            try:
                batch = {"match_ids": _match_ids(rows), "rows": text}
                cursor = await conn.execute(query("write_decision_batch"), batch)
                return list(_fenced(rows, await cursor.fetchall()))
            except (psycopg.errors.IntegrityError, psycopg.errors.DataError):
                pass
        values = [_decision_params(row) for row in rows]
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
    params = {"match_ids": _match_ids(rows)}
    cursor = await conn.execute(query("lock_lease_epochs"), params)
    return _fenced(rows, await cursor.fetchall())


def _match_ids(rows: Sequence[DecisionRow]) -> list[int]:
    return sorted({row.match_id for row in rows})


def _fenced(rows: Sequence[DecisionRow], leases: Sequence[Any]) -> list[Fenced | None]:
    """Per row, `Fenced` if its epoch is not its match's in `leases` ((match id, epoch) rows)."""
    epochs = {int(match_id): int(epoch) for match_id, epoch in leases}
    fenced: list[Fenced | None] = []
    for row in rows:
        current = epochs.get(row.match_id, row.epoch)
        if current == row.epoch:
            fenced.append(None)
        else:
            what = f"record decision {row.number} of match {row.match_id}"
            fenced.append(Fenced(what, row.match_id, row.epoch, current))
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
