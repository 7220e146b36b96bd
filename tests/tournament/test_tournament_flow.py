"""A Swiss tournament driven step by step (as the Celery tasks drive it) over a real referee."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from arena.storage import Database, TournamentStatus
from arena.tournament import rounds as tournaments
from arena.tournament.hosting import host_table
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN, FAST_CLOCK, playing, register, running_referee

pytestmark = pytest.mark.integration


def test_three_round_swiss_rates_every_match_exactly_once(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", fresh_database_url)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)

    async def scenario() -> int:
        async with running_referee(fresh_database_url) as server:
            monkeypatch.setenv("ARENA_REFEREE_ADDRESS", server.address)
            names = [f"t{i}" for i in range(9)]  # 9 bots at 4-seat tables: short tables or byes
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(seed=i) for i in range(len(names))]
            db = server.referee.db
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                tid = await tournaments.create_tournament(
                    db,
                    name="flow",
                    game="hart",
                    bot_names=names,
                    table_size=4,
                    rounds=3,
                    clock=FAST_CLOCK,
                    seed=7,
                )
                step = await tournaments.start(db, tid)
                assert step.round_no == 1 and step.tables
                again = await tournaments.start(db, tid)
                assert again.tables == step.tables, "starting twice pairs once"
                assert step.started_now and not again.started_now
                while not step.finished:
                    results = await asyncio.gather(
                        *(host_table(tid, step.round_no, t.table_no) for t in step.tables)
                    )
                    repeat = await host_table(tid, step.round_no, step.tables[0].table_no)
                    assert repeat["match_id"] == results[0]["match_id"], "a table is hosted once"
                    before = await _ratings(fresh_database_url)
                    nxt = await tournaments.close_round(db, tid, step.round_no)
                    assert nxt.closed_now
                    after_first = await _ratings(fresh_database_url)
                    replayed = await tournaments.close_round(db, tid, step.round_no)
                    assert not replayed.closed_now, "closing twice closes once"
                    assert await _ratings(fresh_database_url) == after_first != before
                    step = nxt
                info = await tournaments.tournament(db, tid)
                assert info is not None and info.status is TournamentStatus.FINISHED
                standings = await tournaments.standings_of(db, tid)
                assert [s.position for s in standings] == list(range(1, 10))
                assert all(s.rounds_played + s.byes == 3 for s in standings)
                scores = [s.score for s in standings]
                assert scores == sorted(scores, reverse=True)
                return tid

    tid = asyncio.run(scenario())
    _check_exactly_once(fresh_database_url, tid)


async def _ratings(url: str) -> dict[int, float]:
    db = await Database.open(url)
    try:
        async with db.transaction("read") as conn:
            cursor = await conn.execute("SELECT bot_id, rating FROM ratings")
            return {int(b): float(r) for b, r in await cursor.fetchall()}
    finally:
        await db.close()


def _check_exactly_once(url: str, tid: int) -> None:
    """Every match of the tournament is rated, once per seat, and the deltas sum to zero."""
    with psycopg.connect(url) as conn:
        matches = conn.execute(
            "SELECT id, seats, rated FROM matches WHERE tournament_id = %s", (tid,)
        ).fetchall()
        assert matches and all(rated for _, _, rated in matches)
        for match_id, seats, _ in matches:
            rows = conn.execute(
                "SELECT count(*), coalesce(sum(delta), 0) FROM rating_changes WHERE match_id = %s",
                (match_id,),
            ).fetchone()
            assert rows is not None
            assert rows[0] == seats and abs(rows[1]) < 1e-9
        games = dict(
            conn.execute("SELECT bot_id, games FROM ratings WHERE game = 'hart'").fetchall()
        )
        played = dict(
            conn.execute(
                "SELECT s.bot_id, count(*) FROM seats s JOIN matches m ON m.id = s.match_id "
                "WHERE m.tournament_id = %s GROUP BY s.bot_id",
                (tid,),
            ).fetchall()
        )
        assert games == played, "each bot's games count each of its matches once"
