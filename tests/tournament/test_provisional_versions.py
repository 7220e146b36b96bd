"""A bot's new version started provisional gets the provisional K again; its rating carries on."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from arena.storage import MatchStatus
from arena.storage.tournaments import ratings_for_update
from arena.tournament.formats import RatingSystem
from arena.tournament.rating_store import rate_closed_round
from arena.tournament.tables import Table
from tests.dbfixtures import migrate_database

pytestmark = pytest.mark.integration


@pytest.fixture
def url(fresh_database_url: str) -> str:
    """A database of its own at the current schema."""
    migrate_database(fresh_database_url)
    return fresh_database_url


async def _veterans(url: str) -> int:
    """Two bots with 100 rated hart games each at 1500; bot 1 starts a provisional v2. Returns
    the id of a finished match between them, played by bot 1's v2."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute(
            "INSERT INTO bots (id, name, token_hash) SELECT i, 'bot' || i, sha256(int4send(i))"
            " FROM generate_series(1, 2) AS i"
        )
        await conn.execute(
            "INSERT INTO bot_versions (bot_id, label) SELECT i, 'v1' FROM generate_series(1, 2) i"
        )
        await conn.execute(
            "INSERT INTO ratings (bot_id, game, rating, games)"
            " SELECT i, 'crossing', 1500, 100 FROM generate_series(1, 2) AS i"
        )
        await conn.execute(
            "INSERT INTO bot_versions (bot_id, label, provisional) VALUES (1, 'v2', true)"
        )
        cursor = await conn.execute(
            "INSERT INTO matches (game, rules_version, seats, seed, status)"
            " VALUES ('crossing', 1, 2, 1, 'finished') RETURNING id"
        )
        row = await cursor.fetchone()
        assert row is not None
        await conn.execute(
            "INSERT INTO seats (match_id, seat, bot_id, version_id)"
            " SELECT %s, i - 1, i, (SELECT max(id) FROM bot_versions WHERE bot_id = i)"
            " FROM generate_series(1, 2) AS i",
            (row[0],),
        )
        return int(row[0])


def test_a_provisional_version_counts_its_own_games_for_k(url: str) -> None:
    async def run() -> None:
        match_id = await _veterans(url)
        async with await psycopg.AsyncConnection.connect(url) as conn, conn.transaction():
            rows = await ratings_for_update(conn, "crossing", [1, 2])
            assert (rows[1].games, rows[1].games_for_k) == (100, 0)
            assert (rows[2].games, rows[2].games_for_k) == (100, 100)
            table = Table(1, 0, (1, 2), match_id, MatchStatus.FINISHED, (1, 2))
            await rate_closed_round(conn, "crossing", RatingSystem.ELO, (1, 1), [table], 16.0)
        with psycopg.connect(url) as conn:
            got = dict(conn.execute("SELECT bot_id, delta FROM rating_changes").fetchall())
            games = dict(conn.execute("SELECT bot_id, games FROM ratings").fetchall())
        # Equal ratings: the winner's gain is its K / 2, the loser's loss the loser's K / 2.
        assert got[1] > -got[2] > 0, "the provisional version moves faster than the veteran"
        assert games == {1: 101, 2: 101}, "the bot's own count of rated games goes on"

    asyncio.run(run())
