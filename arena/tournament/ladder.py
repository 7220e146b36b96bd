"""A continuous ladder per game: while bots are connected, keep making matches among them.

Each beat tick (`tick`) looks at the bots connected to the referee, leaves out those already
playing their per-bot limit of matches, and seats the rest at tables: the bot with the fewest
ladder games first, joined by the free bots nearest to it in rating among those with the
fewest games, so games spread evenly and opponents are of similar strength. Ladder matches are
ordinary ad-hoc matches, so the referee rates each once as it finishes and the Elo leaderboard
shows the result. A tick holds its ladder's row lock, so racing ticks never double-book a bot;
all state is in Postgres, so a worker lost mid-tick loses nothing (the next tick carries on).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from psycopg.types.json import Jsonb

from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.sql import query
from arena.tournament.formats import table_rules
from arena.tournament.ratings import DEFAULT_RATING

Connected = Callable[[], Awaitable[Sequence[str]]]
# (game, bot names in seat order, clock) -> the new match's id
CreateMatch = Callable[[str, Sequence[str], Clock], Awaitable[int]]


def choose_tables(
    free: Sequence[int],
    games: Mapping[int, int],
    ratings: Mapping[int, float],
    table_size: int,
) -> list[list[int]]:
    """Tables of `table_size` from the `free` bots: fewest games first, nearest rating."""
    left = sorted(free, key=lambda b: (games.get(b, 0), ratings.get(b, DEFAULT_RATING), b))
    tables = []
    while len(left) >= table_size:
        anchor = left.pop(0)
        fewest = games.get(anchor, 0)

        def closeness(bot: int, anchor: int = anchor, fewest: int = fewest) -> tuple[int, float]:
            lag = max(0, games.get(bot, 0) - fewest - 1)  # one game ahead is still even
            gap = abs(ratings.get(bot, DEFAULT_RATING) - ratings.get(anchor, DEFAULT_RATING))
            return (lag, gap)

        mates = sorted(left, key=closeness)[: table_size - 1]
        for mate in mates:
            left.remove(mate)
        tables.append([anchor, *mates])
    return tables


async def start(
    db: Database, game: str, table_size: int, concurrency: int = 1, clock: Clock | None = None
) -> None:
    """Start (or reconfigure) the ladder of `game`; `ValueError` names a bad setting."""
    table_rules(game, table_size)
    if table_size < 2:
        raise ValueError(f"a ladder table needs at least 2 seats, not {table_size}")
    if concurrency < 1:
        raise ValueError(f"the per-bot concurrency limit must be at least 1, got {concurrency}")
    params = {
        "game": game,
        "table_size": table_size,
        "concurrency": concurrency,
        "clock": Jsonb((clock or Clock()).to_json()),
    }
    async with db.transaction("start ladder") as conn:
        await conn.execute(query("upsert_ladder"), params)


async def stop(db: Database, game: str) -> None:
    """Stop making ladder matches for `game` (running ones finish); `LookupError` if none."""
    async with db.transaction("stop ladder") as conn:
        cursor = await conn.execute(query("stop_ladder"), {"game": game})
        if await cursor.fetchone() is None:
            raise LookupError(f"no ladder for {game!r}")


async def tick(db: Database, connected: Connected, create_match: CreateMatch) -> list[int]:
    """Make the matches every active ladder can make now; their ids."""
    made: list[int] = []
    async with db.transaction("ladder tick") as conn:
        cursor = await conn.execute(query("active_ladders_for_update"))
        ladders = await cursor.fetchall()
        if not ladders:
            return made
        names = list(await connected())
        cursor = await conn.execute(query("bot_ids_by_name"), {"names": names})
        ids = {str(name): int(bot_id) for bot_id, name in await cursor.fetchall()}
        for game, table_size, concurrency, clock in ladders:
            made += await _fill(
                conn, str(game), int(table_size), int(concurrency), clock, ids, create_match
            )
    return made


async def _fill(
    conn: Any,
    game: str,
    table_size: int,
    concurrency: int,
    clock: dict[str, Any],
    ids: Mapping[str, int],
    create_match: CreateMatch,
) -> list[int]:
    cursor = await conn.execute(query("busy_bots"))
    busy = {int(b): int(n) for b, n in await cursor.fetchall()}
    free = [bot for bot in ids.values() if busy.get(bot, 0) < concurrency]
    cursor = await conn.execute(query("ladder_games"), {"game": game})
    games = {int(b): int(n) for b, n in await cursor.fetchall()}
    cursor = await conn.execute(query("ratings_of"), {"game": game, "bot_ids": free})
    ratings = {int(r[0]): float(r[1]) for r in await cursor.fetchall()}
    name_of = {bot: name for name, bot in ids.items()}
    made = []
    for table in choose_tables(free, games, ratings, table_size):
        match_id = await create_match(game, [name_of[b] for b in table], Clock.from_json(clock))
        await conn.execute(query("record_ladder_match"), {"match_id": match_id, "game": game})
        made.append(match_id)
    return made
