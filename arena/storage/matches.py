"""A match's life in storage: created, started by a host, finished or aborted (fenced writes).

A host's writes carry the lease epoch its claim returned (`arena.storage.leases`) and are
refused with `Fenced` once another referee took the match over; epoch 0 is an unclaimed match's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from arena.storage.errors import Conflict, Fenced, NotFound, StorageError
from arena.storage.pool import Pool
from arena.storage.rows import MatchStatus, SeatResult, TableKey
from arena.storage.sql import query
from engines.api import Json, Termination

_BIGINT = range(-(2**63), 2**63)


async def create_match(
    pool: Pool,
    game: str,
    rules_version: int,
    options: Mapping[str, Json],
    seats: int,
    seed: int,
    clock: Mapping[str, Json],
    bot_ids: Sequence[int],
    tournament: TableKey | None = None,
    *,
    rated: bool = False,
    reuse_active: bool = False,
) -> int:
    """Create a pending match seating `bot_ids` in order; a tournament table gets one match.

    Creating the match of a table that has one returns the existing id (so a retried task
    is harmless), or raises `Conflict` if that match seats other bots. With `reuse_active`,
    an ad-hoc match identical to an unfinished one (game, seed, options, seating) is that one.
    """
    if len(bot_ids) != seats:
        raise ValueError(f"{seats} seats but {len(bot_ids)} bots: {list(bot_ids)}")
    if seed not in _BIGINT:
        raise ValueError(f"seed {seed} does not fit in a signed 64-bit integer")
    table = tournament
    what = f"create {game} match" + (f" at {table}" if table else "")
    params = {
        "game": game,
        "rules_version": rules_version,
        "options": Jsonb(dict(options)),
        "seats": seats,
        "seed": seed,
        "clock": Jsonb(dict(clock)),
        "tournament_id": table.tournament_id if table else None,
        "round_no": table.round_no if table else None,
        "table_no": table.table_no if table else None,
        "rated": rated,
    }
    async with pool.connection(what) as conn, conn.transaction():
        if reuse_active and table is None:
            found = await _active_adhoc_match(conn, params, bot_ids)
            if found is not None:
                return found
        cursor = await conn.execute(query("create_match"), params)
        created = await cursor.fetchone()
        if created is not None:
            match_id = int(created[0])
            await conn.execute(
                query("create_seats"), {"match_id": match_id, "bot_ids": list(bot_ids)}
            )
            return match_id
        cursor = await conn.execute(query("match_at_table"), params)
        existing = await cursor.fetchone()
        assert existing is not None, "ON CONFLICT skipped the insert, so the row exists"
        match_id = int(existing[0])
        cursor = await conn.execute(query("seat_bot_ids"), {"match_id": match_id})
        seated = await cursor.fetchone()
        if seated is None or list(seated[0]) != list(bot_ids):
            stored = None if seated is None else list(seated[0])
            raise Conflict(f"{what}: match {match_id} is already there, seating {stored}")
        return match_id


async def start_match(pool: Pool, match_id: int, host: str, epoch: int = 0) -> None:
    """Mark a match running on `host` (again, when a new host resumes it); fenced by `epoch`."""
    what = f"start match {match_id} on {host!r}"
    params = {"match_id": match_id, "host": host, "epoch": epoch}
    async with pool.connection(what) as conn:
        cursor = await conn.execute(query("start_match"), params)
        if await cursor.fetchone() is None:
            raise await _status_error(conn, what, match_id, epoch)


async def mark_absent_at_start(
    pool: Pool, match_id: int, seats: Sequence[int], epoch: int = 0
) -> None:
    """Note that `seats`' bots were not connected when the match started (by its host at
    `epoch`; a host that lost the lease writes nothing)."""
    params = {"match_id": match_id, "seats": list(seats), "epoch": epoch}
    async with pool.connection(f"note who match {match_id} started without") as conn:
        await conn.execute(query("mark_absent_at_start"), params)


async def finish_match(
    pool: Pool,
    match_id: int,
    termination: Termination,
    results: Sequence[SeatResult],
    epoch: int = 0,
) -> None:
    """Mark a running match finished with one result per seat, in seat order; fenced by `epoch`."""
    what = f"finish match {match_id}"
    params = {
        "match_id": match_id,
        "epoch": epoch,
        "termination": termination.value,
        "seats": list(range(len(results))),
        "ranks": [r.rank for r in results],
        "scores": [r.score for r in results],
        "strikes": [r.strikes for r in results],
        "forfeited": [r.forfeited for r in results],
        "time_used": [r.time_used for r in results],
    }
    async with pool.connection(what) as conn, conn.transaction():
        cursor = await conn.execute(query("finish_match"), params)
        row = await cursor.fetchone()
        if row is None:
            raise await _status_error(conn, what, match_id, epoch)
        if row[0] != len(results):
            raise ValueError(f"{what}: {row[0]} seats but {len(results)} results")
        await conn.execute(query("record_results"), params)


async def abort_match(pool: Pool, match_id: int, reason: str, epoch: int | None = None) -> None:
    """Mark a pending or running match aborted, keeping `reason` as its termination.

    A host passes its lease `epoch` (fenced); an administrator passes None (never fenced).
    """
    what = f"abort match {match_id}"
    async with pool.connection(what) as conn:
        params = {"match_id": match_id, "reason": reason, "epoch": epoch}
        cursor = await conn.execute(query("abort_match"), params)
        if await cursor.fetchone() is None:
            raise await _status_error(conn, what, match_id, epoch)


async def resign_seats(pool: Pool, match_id: int, seats: Sequence[int]) -> None:
    """Store that `seats` of a running match resigned: a resumed match keeps them out."""
    what = f"resign seats {list(seats)} of match {match_id}"
    async with pool.connection(what) as conn:
        params = {"match_id": match_id, "seats": list(seats)}
        cursor = await conn.execute(query("resign_seats"), params)
        if await cursor.fetchone() is None:
            raise await _status_error(conn, what, match_id)


async def _active_adhoc_match(
    conn: AsyncConnection[Any], params: Mapping[str, Any], bot_ids: Sequence[int]
) -> int | None:
    await conn.execute(query("lock_adhoc_match"), params)
    cursor = await conn.execute(query("active_adhoc_match"), {**params, "bot_ids": list(bot_ids)})
    row = await cursor.fetchone()
    return None if row is None else int(row[0])


async def _status_error(
    conn: AsyncConnection[Any], what: str, match_id: int, epoch: int | None = None
) -> StorageError:
    """Why a write found no row: no match, a stale epoch (checked first) or the wrong status."""
    cursor = await conn.execute(query("match_status"), {"match_id": match_id})
    row = await cursor.fetchone()
    if row is None:
        return NotFound(f"{what}: no such match")
    if epoch is not None and int(row[1]) != epoch:
        return Fenced(what, match_id, epoch, int(row[1]))
    status = row[0].value if isinstance(row[0], MatchStatus) else row[0]
    return Conflict(f"{what}: the match is {status}")
