"""Changing a running tournament's field: withdraw an entrant, or enter a late one.

Either takes effect from the next round that has not been paired yet (round 1 before the
start). A withdrawn bot keeps its results and its place in the standings and is paired no more;
a late entrant starts on zero points and is paired from its first round on. A tournament with a
forfeit limit withdraws a bot automatically, before pairing, once it has forfeited that many of
the tournament's matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import AsyncConnection

from arena.storage import Database
from arena.storage.sql import query


@dataclass(frozen=True, slots=True)
class FieldChange:
    """What a withdrawal or late entry did: the bot and the first round it applies to."""

    tournament_id: int
    bot_id: int
    bot: str
    round_no: int


async def withdraw(db: Database, tournament_id: int, bot: str) -> FieldChange:
    """Withdraw `bot` from the next unpaired round on; `LookupError`/`ValueError` say why not."""
    async with db.transaction("withdraw entrant") as conn:
        round_no, bot_id = await _next_round_and_bot(conn, tournament_id, bot)
        cursor = await conn.execute(
            query("withdraw_entry"),
            {"tournament_id": tournament_id, "bot_id": bot_id, "round_no": round_no},
        )
        if await cursor.fetchone() is None:
            raise ValueError(f"{bot!r} is not playing in tournament {tournament_id}")
    return FieldChange(tournament_id, bot_id, bot, round_no)


async def enter(db: Database, tournament_id: int, bot: str) -> FieldChange:
    """Enter `bot` late, from the next unpaired round on; a withdrawn bot may come back."""
    async with db.transaction("enter late entrant") as conn:
        round_no, bot_id = await _next_round_and_bot(conn, tournament_id, bot)
        key = {"tournament_id": tournament_id, "bot_id": bot_id, "round_no": round_no}
        cursor = await conn.execute(query("enter_late"), key)
        if await cursor.fetchone() is None:
            raise ValueError(f"{bot!r} is already entered in tournament {tournament_id}")
        await conn.execute(query("create_standing"), key)
    return FieldChange(tournament_id, bot_id, bot, round_no)


async def _next_round_and_bot(
    conn: AsyncConnection[Any], tournament_id: int, bot: str
) -> tuple[int, int]:
    execute = conn.execute
    # Locking the tournament serialises this with closing a round (which pairs the next one).
    cursor = await execute(query("tournament_for_update"), {"tournament_id": tournament_id})
    info = await cursor.fetchone()
    if info is None:
        raise LookupError(f"no tournament {tournament_id}")
    status, rounds, current = info[8].value, int(info[5]), int(info[10])
    if status in ("finished", "cancelled"):
        raise ValueError(f"tournament {tournament_id} is {status}: its field cannot change")
    round_no = current + 1
    if round_no > rounds:
        raise ValueError(f"tournament {tournament_id} has no round left to change")
    cursor = await execute(query("bot_ids_by_name"), {"names": [bot]})
    row = await cursor.fetchone()
    if row is None:
        raise LookupError(f"unknown bot {bot!r}")
    return round_no, int(row[0])
