"""Bot rows: a bot registered by name and token digest, found again by either."""

from __future__ import annotations

import psycopg
from psycopg.rows import class_row

from arena.storage.errors import Conflict
from arena.storage.pool import Pool
from arena.storage.rows import BotRow
from arena.storage.sql import query

TOKEN_HASH_BYTES = 32
"""Bots are looked up by a SHA-256 digest of their token; the token itself is never stored."""
_BOT = class_row(BotRow)


async def create_bot(pool: Pool, name: str, token_hash: bytes, owner_id: int | None = None) -> int:
    """Register a bot (and its first version, 'v1') by name and token digest, owned by the
    account `owner_id` if given; a taken name or token raises `Conflict`."""
    if not name:
        raise ValueError("a bot needs a name")
    if not isinstance(token_hash, bytes) or len(token_hash) != TOKEN_HASH_BYTES:
        raise ValueError("token_hash must be the 32-byte SHA-256 digest of the token")
    what = f"create bot {name!r}"
    try:
        async with pool.connection(what) as conn:
            cursor = await conn.execute(
                query("create_bot"), {"name": name, "token_hash": token_hash, "owner_id": owner_id}
            )
            row = await cursor.fetchone()
    except Conflict as exc:
        cause = exc.__cause__
        if isinstance(cause, psycopg.Error) and cause.diag.constraint_name == "bots_name_key":
            raise Conflict(f"{what}: a bot named {name!r} already exists") from cause
        raise Conflict(f"{what}: this token is already registered to another bot") from cause
    assert row is not None
    return int(row[0])


async def bot_by_token_hash(pool: Pool, token_hash: bytes) -> BotRow | None:
    """The bot whose token has this SHA-256 digest, if any."""
    return await pool.one(
        "find bot by token", query("bot_by_token_hash"), {"token_hash": token_hash}, _BOT
    )


async def bot_by_name(pool: Pool, name: str) -> BotRow | None:
    """The bot called `name`, if any."""
    return await pool.one(f"find bot {name!r}", query("bot_by_name"), {"name": name}, _BOT)


async def list_bots(pool: Pool) -> list[BotRow]:
    """Every bot, by name."""
    return await pool.all("list bots", query("list_bots"), {}, _BOT)
