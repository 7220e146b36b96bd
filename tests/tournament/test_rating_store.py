"""Rating writes without per-row keys (migration 0009): exactly once, readable, delete-guarded."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from arena.storage import Database, MatchStatus
from arena.storage.botstats import bot_stats, rating_trends
from arena.tournament.formats import RatingSystem
from arena.tournament.rating_store import leaderboard, rate_closed_round, rate_match
from arena.tournament.tables import Table
from tests.dbfixtures import migrate_database

pytestmark = pytest.mark.integration

BOTS = 8


@pytest.fixture
def url(fresh_database_url: str) -> str:
    """A database of its own at the current schema (the delete test deletes)."""
    migrate_database(fresh_database_url)
    return fresh_database_url


async def _round_of_two_tables(url: str) -> list[Table]:
    """Eight bots and two finished 4-seat matches: round 1 of tournament 1 (the rating
    store takes the key from its caller)."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "INSERT INTO bots (id, name, token_hash) SELECT i, 'bot' || i, sha256(int4send(i))"
            " FROM generate_series(1, %s) AS i",
            (BOTS,),
        )
        cursor = await conn.execute(
            "INSERT INTO matches (game, rules_version, seats, seed, status)"
            " SELECT 'hart', 1, 4, 1, 'finished' FROM generate_series(1, 2) RETURNING id"
        )
        ids = [int(r[0]) for r in await cursor.fetchall()]
    return [
        Table(1, 0, (1, 2, 3, 4), ids[0], MatchStatus.FINISHED, (1, 2, 3, 4)),
        Table(1, 1, (5, 6, 7, 8), ids[1], MatchStatus.FINISHED, (4, 3, 2, 1)),
    ]


async def _rate(url: str, tables: list[Table]) -> None:
    async with await psycopg.AsyncConnection.connect(url) as conn, conn.transaction():
        await rate_closed_round(conn, "hart", RatingSystem.ELO, (1, 1), tables, 32.0)


def test_a_retried_round_is_rated_once_and_reads_back(url: str) -> None:
    async def run() -> None:
        tables = await _round_of_two_tables(url)
        await _rate(url, tables)
        await _rate(url, tables)  # close_round retried after a lost commit
        with psycopg.connect(url) as conn:
            changes = conn.execute(
                "SELECT bot_id, match_id, tournament_id, round_no, delta FROM rating_changes"
                " ORDER BY bot_id"
            ).fetchall()
            games = conn.execute("SELECT bot_id, games FROM ratings ORDER BY bot_id").fetchall()
        assert [c[0] for c in changes] == list(range(1, BOTS + 1))
        assert {(c[1], c[2], c[3]) for c in changes[:4]} == {(tables[0].match_id, 1, 1)}
        assert abs(sum(c[4] for c in changes)) < 1e-9
        assert changes[0][4] > 0 > changes[3][4], "rank 1 gains, rank 4 loses"
        assert games == [(b, 1) for b in range(1, BOTS + 1)]
        db = await Database.open(url)
        try:
            stats = await bot_stats(db, "bot1")
            assert stats is not None
            hart = stats.game("hart")
            assert hart is not None and hart.rated_games == 1
            assert [p.match_id for p in hart.history] == [tables[0].match_id]
            assert hart.history[0].delta == pytest.approx(changes[0][4])
            trends = await rating_trends(db, "hart", [1, 8])
            assert trends[1] == [pytest.approx(1500 + changes[0][4])]
            board = await leaderboard(db, "hart", limit=3)
            assert [row["bot_id"] for row in board][:1] == [1]
            assert len(board) == 3
            second = int(changes[4][1])
            assert await db.rating_changes([second]) == {
                (second, b): pytest.approx(d) for b, _, _, _, d in changes[4:]
            }
        finally:
            await db.close()

    asyncio.run(run())


def test_an_ad_hoc_match_is_rated_once_in_batched_writes(url: str) -> None:
    async def run() -> None:
        tables = await _round_of_two_tables(url)
        match_id = tables[0].match_id
        assert match_id is not None
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(
                "INSERT INTO seats (match_id, seat, bot_id, rank) VALUES"
                " (%(m)s, 0, 3, 2), (%(m)s, 1, 1, 1), (%(m)s, 2, 2, 3)",
                {"m": match_id},
            )
        db = await Database.open(url)
        try:
            first = await rate_match(db, match_id)
            assert await rate_match(db, match_id) == {}, "a match is rated once"
            stored = await db.rating_changes([match_id])
        finally:
            await db.close()
        assert set(first) == {1, 2, 3} and first[1] > 0 > first[2]
        assert stored == {(match_id, b): pytest.approx(d) for b, d in first.items()}
        with psycopg.connect(url) as conn:
            rows = conn.execute(
                "SELECT r.bot_id, r.rating, r.games, c.before, c.after, c.tournament_id"
                " FROM ratings r JOIN rating_changes c USING (bot_id) ORDER BY r.bot_id"
            ).fetchall()
        for bot, rating, games, before, after, tournament in rows:
            assert (games, before, tournament) == (1, 1500.0, None)
            assert rating == pytest.approx(after) == pytest.approx(1500.0 + first[bot])

    asyncio.run(run())


def test_a_bot_or_match_with_rating_changes_cannot_be_deleted(url: str) -> None:
    async def run() -> list[Table]:
        tables = await _round_of_two_tables(url)
        await _rate(url, tables[:1])
        return tables

    tables = asyncio.run(run())
    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.ForeignKeyViolation, match="rated match"):
            conn.execute("DELETE FROM matches WHERE id = %s", (tables[0].match_id,))
        with pytest.raises(psycopg.errors.ForeignKeyViolation, match="rating changes"):
            conn.execute("DELETE FROM ratings WHERE bot_id = 1")
            conn.execute("DELETE FROM bots WHERE id = 1")
        # The unrated match and a bot that was never rated go as before.
        conn.execute("DELETE FROM matches WHERE id = %s", (tables[1].match_id,))
        conn.execute(
            "INSERT INTO bots (id, name, token_hash) SELECT 99, 'new', sha256(int4send(99))"
        )
        conn.execute("DELETE FROM bots WHERE id = 99")
        assert conn.execute("SELECT count(*) FROM rating_changes").fetchone() == (4,)
        assert conn.execute("SELECT count(*) FROM bots WHERE id = 1").fetchone() == (1,)
