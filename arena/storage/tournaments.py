"""Typed reads of tournaments, their rounds, tables and standings (rows of `tournaments.sql`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, LiteralString

from psycopg import AsyncConnection
from psycopg.rows import class_row, kwargs_row

from arena.storage.db import Database
from arena.storage.rows import MatchStatus, RoundRow, TournamentStatus
from arena.storage.sql import query
from engines.api import Json


class Format(StrEnum):
    """How a round's tables are formed (column `tournaments.format`)."""

    SWISS = "swiss"
    """By score: tables of bots on similar scores who have not met."""
    ROUND_ROBIN = "round_robin"
    """Regardless of score: every pair of entrants meets as evenly as the rounds allow."""


class RatingSystem(StrEnum):
    """Which rating a tournament's results update (Elo is always kept as well)."""

    ELO = "elo"
    OPENSKILL = "openskill"


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A stored tournament (queries `tournament`, `tournament_for_update`, `list_tournaments`)."""

    id: int
    name: str
    game: str
    options: Mapping[str, Json]
    table_size: int
    rounds: int
    clock: Mapping[str, Json]
    starts_at: datetime
    status: TournamentStatus
    seed: int
    current_round: int
    """The last round paired (0 before the first)."""
    created_at: datetime
    finished_at: datetime | None
    format: Format
    rating_system: RatingSystem
    forfeit_limit: int | None
    """Forfeits after which an entrant is withdrawn (None: never)."""

    @classmethod
    def load(cls, **columns: Any) -> TournamentRow:
        """The row from its columns; `format` and `rating_system` are text in Postgres."""
        return cls(
            **{
                **columns,
                "format": Format(columns["format"]),
                "rating_system": RatingSystem(columns["rating_system"]),
            }
        )


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table of a round with its latest attempt's match (query `round_tables`)."""

    table_no: int
    bot_ids: list[int]
    match_id: int | None
    match_status: MatchStatus | None
    attempt: int
    """0 before the table is hosted, 1 for its first match, 2 for its replay."""
    ranks: list[int | None]


@dataclass(frozen=True, slots=True)
class StandingRecord:
    """A stored line of the standings, best first (query `standings`)."""

    bot_id: int
    name: str
    score: float
    tiebreak: float
    byes: int
    short_tables: int
    rounds_played: int
    rating: float
    points: int
    opponents_points: int
    opponents: int
    withdrawn_round: int | None


@dataclass(frozen=True, slots=True)
class RatingRow:
    """A bot's Elo in a game (query `ratings_for_update`)."""

    bot_id: int
    rating: float
    games: int
    """Rated games so far."""
    k_games: int | None = None
    """The rated games the provisional K follows: `games`, or those of a provisional version."""

    @property
    def games_for_k(self) -> int:
        """The rated games the provisional K follows."""
        return self.games if self.k_games is None else self.k_games


@dataclass(frozen=True, slots=True)
class MatchToRate:
    """What rating an ad-hoc match needs to know of it (query `match_for_rating`)."""

    id: int
    game: str
    status: MatchStatus
    rated: bool
    tournament_id: int | None


_TOURNAMENT = kwargs_row(TournamentRow.load)


async def tournament(db: Database, tournament_id: int) -> TournamentRow | None:
    """The tournament, or None."""
    async with db.transaction("read tournament") as conn:
        return await tournament_in(conn, tournament_id)


async def tournament_in(
    conn: AsyncConnection[Any], tournament_id: int, *, for_update: bool = False
) -> TournamentRow | None:
    """The tournament read in the caller's transaction (locked with `for_update`)."""
    sql = query("tournament_for_update") if for_update else query("tournament")
    async with conn.cursor(row_factory=_TOURNAMENT) as cur:
        await cur.execute(sql, {"tournament_id": tournament_id})
        return await cur.fetchone()


async def list_tournaments(
    db: Database, status: TournamentStatus | str | None = None, limit: int = 50
) -> list[TournamentRow]:
    """The newest tournaments, of one status if given."""
    wanted = None if status is None else TournamentStatus(status).value
    params = {"status": wanted, "limit": limit}
    return await db.pool.all("list tournaments", query("list_tournaments"), params, _TOURNAMENT)


async def due_tournament_ids(db: Database) -> list[int]:
    """Scheduled tournaments whose start time has come."""
    return await _ids(db, "read due tournaments", query("due_tournaments"), {})


async def running_tournament_ids(db: Database) -> list[int]:
    """Tournaments being played."""
    return await _ids(db, "read running tournaments", query("running_tournaments"), {})


async def round_rows(db: Database, tournament_id: int) -> list[RoundRow]:
    """The tournament's rounds, first to last."""
    key = {"tournament_id": tournament_id}
    return await db.pool.all("read rounds", query("rounds"), key, class_row(RoundRow))


async def round_for_update(
    conn: AsyncConnection[Any], tournament_id: int, round_no: int
) -> RoundRow | None:
    """The round, locked in the caller's transaction."""
    async with conn.cursor(row_factory=class_row(RoundRow)) as cur:
        key = {"tournament_id": tournament_id, "round_no": round_no}
        await cur.execute(query("round_for_update"), key)
        return await cur.fetchone()


async def table_rows(db: Database, tournament_id: int, round_no: int) -> list[TableRow]:
    """The round's tables, by number."""
    key = {"tournament_id": tournament_id, "round_no": round_no}
    return await db.pool.all("read tables", query("round_tables"), key, class_row(TableRow))


async def entrant_ids(db: Database, tournament_id: int) -> list[int]:
    """Every bot ever entered, withdrawn or not."""
    params = {"tournament_id": tournament_id}
    return await _ids(db, "read entries", query("entry_bots"), params)


async def active_entrant_ids(db: Database, tournament_id: int, round_no: int) -> list[int]:
    """The entrants who play round `round_no` (joined by then, not withdrawn before it)."""
    params = {"tournament_id": tournament_id, "round_no": round_no}
    return await _ids(db, "read active entries", query("active_entry_bots"), params)


async def bye_ids(db: Database, tournament_id: int, round_no: int) -> list[int]:
    """The bots who had a bye in round `round_no`."""
    params = {"tournament_id": tournament_id, "round_no": round_no}
    return await _ids(db, "read byes", query("round_byes"), params)


async def _ids(db: Database, what: str, sql: LiteralString, params: Mapping[str, int]) -> list[int]:
    async with db.transaction(what) as conn:
        cursor = await conn.execute(sql, params)
        return [int(r[0]) for r in await cursor.fetchall()]


async def ratings_of(db: Database, game: str, bots: Sequence[int]) -> dict[int, float]:
    """The Elo ratings of those of `bots` who have one."""
    async with db.transaction("read ratings") as conn:
        cursor = await conn.execute(query("ratings_of"), {"game": game, "bot_ids": list(bots)})
        return {int(r[0]): float(r[1]) for r in await cursor.fetchall()}


async def ratings_for_update(
    conn: AsyncConnection[Any], game: str, bots: Sequence[int]
) -> dict[int, RatingRow]:
    """The Elo rows of those of `bots` who have one, locked in the caller's transaction."""
    async with conn.cursor(row_factory=class_row(RatingRow)) as cur:
        await cur.execute(query("ratings_for_update"), {"game": game, "bot_ids": list(bots)})
        return {r.bot_id: r for r in await cur.fetchall()}


async def lock_ratings_and_mark_rated(
    conn: AsyncConnection[Any], game: str, bots: Sequence[int], match_ids: Sequence[int]
) -> tuple[dict[int, RatingRow], set[int]]:
    """Lock the Elo rows of those of `bots` who have one and mark the finished, unrated ones of
    `match_ids` rated, in the caller's transaction and one round trip (a pipeline): the rows,
    and the matches marked now (each is marked, so rated, exactly once)."""
    async with conn.pipeline():
        locked = conn.cursor(row_factory=class_row(RatingRow))
        await locked.execute(query("ratings_for_update"), {"game": game, "bot_ids": list(bots)})
        marking = await conn.execute(query("mark_rated_many"), {"match_ids": list(match_ids)})
        rows = {r.bot_id: r for r in await locked.fetchall()}
        return rows, {int(r[0]) for r in await marking.fetchall()}


async def write_round_ratings(
    conn: AsyncConnection[Any], changes: Mapping[str, Any], ratings: Mapping[str, Any]
) -> None:
    """Insert a round's rating changes and upsert its ratings (parameters of the queries
    `insert_rating_changes` and `upsert_ratings`) in one round trip, in the caller's
    transaction."""
    async with conn.pipeline():
        await conn.execute(query("insert_rating_changes"), changes)
        await conn.execute(query("upsert_ratings"), ratings)


async def match_for_rating(conn: AsyncConnection[Any], match_id: int) -> MatchToRate | None:
    """The match, locked in the caller's transaction."""
    async with conn.cursor(row_factory=class_row(MatchToRate)) as cur:
        await cur.execute(query("match_for_rating"), {"match_id": match_id})
        return await cur.fetchone()


async def standing_records(db: Database, tournament_id: int) -> list[StandingRecord]:
    """The stored standings, best first."""
    key = {"tournament_id": tournament_id}
    rows = class_row(StandingRecord)
    return await db.pool.all("read standings", query("standings"), key, rows)
