"""Matches read back: rows with their seating, logged decisions, replayable records, counts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from psycopg.rows import class_row, kwargs_row

from arena.storage.errors import NotFound, StorageError
from arena.storage.pool import Pool
from arena.storage.rows import DecisionRow, MatchRow, MatchStatus, SeatRow
from arena.storage.sql import query
from engines.record import Record

_MATCH = class_row(MatchRow)
_SEAT = class_row(SeatRow)
_DECISION = kwargs_row(DecisionRow.from_db)


async def read_match(pool: Pool, match_id: int) -> MatchRow | None:
    """A match with its seating, if it exists."""
    what = f"read match {match_id}"
    found = await pool.one(what, query("match"), {"match_id": match_id}, _MATCH)
    if found is None:
        return None
    return (await _seated(pool, what, [found]))[0]


async def list_matches(
    pool: Pool,
    status: MatchStatus | None = None,
    game: str | None = None,
    bot_id: int | None = None,
    limit: int = 50,
) -> list[MatchRow]:
    """The newest matches (with seating), optionally by status, game and bot."""
    params = {
        "status": None if status is None else status.value,
        "game": game,
        "bot_id": bot_id,
        "limit": limit,
    }
    found = await pool.all("list matches", query("list_matches"), params, _MATCH)
    return await _seated(pool, "list matches", found)


async def recent_matches(pool: Pool, limit: int) -> list[MatchRow]:
    """Finished matches (with seating), the last to finish first."""
    found = await pool.all("list matches", query("recent_matches"), {"limit": limit}, _MATCH)
    return await _seated(pool, "list matches", found)


async def _seated(pool: Pool, what: str, matches: list[MatchRow]) -> list[MatchRow]:
    params = {"match_ids": [m.id for m in matches]}
    seats = await pool.all(what, query("seating"), params, _SEAT)
    by_match: dict[int, list[SeatRow]] = {}
    for seat in seats:
        by_match.setdefault(seat.match_id, []).append(seat)
    # MatchStatus(...) also covers a connection opened before another process migrated.
    return [
        replace(m, status=MatchStatus(m.status), seating=tuple(by_match.get(m.id, ())))
        for m in matches
    ]


async def decisions(pool: Pool, match_id: int) -> list[DecisionRow]:
    """The logged decisions of a match, by number."""
    what = f"read decisions of match {match_id}"
    return await pool.all(what, query("decisions"), {"match_id": match_id}, _DECISION)


async def decisions_from(pool: Pool, match_id: int, start: int) -> list[DecisionRow]:
    """The logged decisions of a match numbered `start` or more, by number."""
    what = f"read decisions of match {match_id}"
    args = {"match_id": match_id, "start": start}
    return await pool.all(what, query("decisions_from"), args, _DECISION)


async def record(pool: Pool, match_id: int) -> Record:
    """The replayable record of a match: its setup and the joint actions logged so far."""
    match = await read_match(pool, match_id)
    if match is None:
        raise NotFound(f"record of match {match_id}: no such match")
    moves = await decisions(pool, match_id)
    for index, move in enumerate(moves):
        if move.number != index:
            raise StorageError(f"record of match {match_id}: decision {index} is missing")
    return Record(
        game=match.game,
        rules_version=match.rules_version,
        options=dict(match.options),
        seats=match.seats,
        seed=match.seed,
        moves=tuple(move.joint for move in moves),
    )


async def decision_counts(pool: Pool, match_ids: Sequence[int]) -> dict[int, int]:
    """Match id -> decisions logged so far, for each of `match_ids` (0 when none)."""
    params = {"match_ids": list(match_ids)}
    async with pool.connection("count decisions") as conn:
        cursor = await conn.execute(query("decision_counts"), params)
        counted = {int(r[0]): int(r[1]) for r in await cursor.fetchall()}
    return {m: counted.get(m, 0) for m in match_ids}


async def active_match_counts(pool: Pool, bot_ids: Sequence[int]) -> dict[int, int]:
    """Bot id -> unfinished matches it plays, for each of `bot_ids` (0 when none)."""
    params = {"bot_ids": list(bot_ids)}
    async with pool.connection("count active matches") as conn:
        cursor = await conn.execute(query("active_match_counts"), params)
        counted = {int(r[0]): int(r[1]) for r in await cursor.fetchall()}
    return {b: counted.get(b, 0) for b in bot_ids}


async def rating_changes(pool: Pool, match_ids: Sequence[int]) -> dict[tuple[int, int], float]:
    """(match id, bot id) -> the Elo change that match gave that bot, for rated matches."""
    params = {"match_ids": list(match_ids)}
    async with pool.connection("read rating changes") as conn:
        cursor = await conn.execute(query("match_rating_changes"), params)
        return {(int(r[0]), int(r[1])): float(r[2]) for r in await cursor.fetchall()}


async def match_status(pool: Pool, match_id: int) -> MatchStatus | None:
    """Only the match's status (None if there is no such match): one indexed read, for a
    caller that waits for a match to end without loading its moves."""
    async with pool.connection("match status") as conn:
        cursor = await conn.execute(query("match_status"), {"match_id": match_id})
        row = await cursor.fetchone()
    return None if row is None else MatchStatus(row[0])


class MatchReads:
    """The reads of matches and their logs on `arena.storage.Database` (a base class, to keep
    `Database` small). Each method calls this module's function of the same name (`match`
    calls `read_match`) with the pool: not itself."""

    pool: Pool

    async def match(self, match_id: int) -> MatchRow | None:
        """A match with its seating, if it exists."""
        return await read_match(self.pool, match_id)

    async def match_status(self, match_id: int) -> MatchStatus | None:
        """Only the match's status, if it exists."""
        return await match_status(self.pool, match_id)

    async def list_matches(
        self,
        status: MatchStatus | None = None,
        game: str | None = None,
        bot_id: int | None = None,
        limit: int = 50,
    ) -> list[MatchRow]:
        """The newest matches (with seating), optionally by status, game and bot."""
        return await list_matches(self.pool, status, game, bot_id, limit)

    async def recent_matches(self, limit: int = 10) -> list[MatchRow]:
        """Finished matches (with seating), the last to finish first."""
        return await recent_matches(self.pool, limit)

    async def decisions(self, match_id: int) -> list[DecisionRow]:
        """The logged decisions of a match, by number."""
        return await decisions(self.pool, match_id)

    async def decisions_from(self, match_id: int, start: int) -> list[DecisionRow]:
        """The logged decisions of a match numbered `start` or more, by number."""
        return await decisions_from(self.pool, match_id, start)

    async def record(self, match_id: int) -> Record:
        """The replayable record of a match: its setup and the joint actions logged so far."""
        return await record(self.pool, match_id)

    async def decision_counts(self, match_ids: Sequence[int]) -> dict[int, int]:
        """Match id -> decisions logged so far, for each of `match_ids` (0 when none)."""
        return await decision_counts(self.pool, match_ids)

    async def active_match_counts(self, bot_ids: Sequence[int]) -> dict[int, int]:
        """Bot id -> unfinished matches it plays, for each of `bot_ids` (0 when none)."""
        return await active_match_counts(self.pool, bot_ids)

    async def rating_changes(self, match_ids: Sequence[int]) -> dict[tuple[int, int], float]:
        """(match id, bot id) -> the Elo change that match gave that bot, for rated matches."""
        return await rating_changes(self.pool, match_ids)
