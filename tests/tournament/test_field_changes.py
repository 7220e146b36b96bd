"""Tournaments over real Postgres: withdrawals, late entries, forfeits, exact standings, match
ids, small fields and the OpenSkill rating. Match results are written straight into the
matches and seats tables (the referee is tested elsewhere), so rounds close in milliseconds."""

from __future__ import annotations

import asyncio
import hashlib
import random
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
import pytest

from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.sql import query
from arena.tournament import entries
from arena.tournament import rounds as tournaments
from arena.tournament.pairing import RoundResult, TableResult, standings

pytestmark = pytest.mark.integration

CLOCK = Clock()


async def _bots(db: Database, names: list[str]) -> None:
    for name in names:
        await db.create_bot(name, hashlib.sha256(name.encode()).digest())


async def _finish(
    db: Database,
    tid: int,
    step: tournaments.Step,
    rnd: random.Random,
    forfeits: frozenset[str] = frozenset(),
) -> None:
    """Record a finished match with random ranks at every table of the step's round."""
    names = await _names(db)
    async with db.transaction("fake results") as conn:
        for table in step.tables:
            cursor = await conn.execute(
                "INSERT INTO matches (game, rules_version, seats, seed, status, tournament_id,"
                " round_no, table_no) VALUES ('hart', 1, %s, 1, 'finished', %s, %s, %s)"
                " RETURNING id",
                (len(table.bot_ids), tid, step.round_no, table.table_no),
            )
            row = await cursor.fetchone()
            assert row is not None
            for seat, bot in enumerate(table.bot_ids):
                await conn.execute(
                    "INSERT INTO seats (match_id, seat, bot_id, rank, forfeited)"
                    " VALUES (%s, %s, %s, %s, %s)",
                    (row[0], seat, bot, rnd.randrange(len(table.bot_ids)), names[bot] in forfeits),
                )


async def _names(db: Database) -> dict[int, str]:
    async with db.transaction("names") as conn:
        cursor = await conn.execute("SELECT id, name FROM bots")
        return {int(i): str(n) for i, n in await cursor.fetchall()}


def _run(url: str, body: Callable[[Database], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        db = await Database.open(url)
        try:
            return await body(db)
        finally:
            await db.close()

    return asyncio.run(main())


def test_withdrawn_and_late_entrants_are_paired_from_the_next_round(
    migrated_database_url: str,
) -> None:
    async def body(db: Database) -> None:
        names = [f"w{i}" for i in range(9)]
        await _bots(db, names)
        tid = await tournaments.create_tournament(
            db, name="", game="hart", bot_names=names[:8], table_size=4, rounds=3, clock=CLOCK
        )
        early = await entries.withdraw(db, tid, "w7")  # before the start: never plays
        assert early.round_no == 1
        step = await tournaments.start(db, tid)
        seated = {b for t in step.tables for b in t.bot_ids}
        ids = {n: i for i, n in (await _names(db)).items()}
        assert ids["w7"] not in seated and len(seated) == 7
        gone = await entries.withdraw(db, tid, "w0")
        late = await entries.enter(db, tid, "w8")
        assert gone.round_no == late.round_no == 2
        with pytest.raises(ValueError, match="already entered"):
            await entries.enter(db, tid, "w8")
        with pytest.raises(LookupError, match="unknown bot"):
            await entries.withdraw(db, tid, "nobody")
        with pytest.raises(LookupError, match="no tournament"):
            await entries.enter(db, tid + 99, "w8")
        rnd = random.Random(1)
        await _finish(db, tid, step, rnd)
        step = await tournaments.close_round(db, tid, 1)
        seated = {b for t in step.tables for b in t.bot_ids} | set(await _byes(db, tid, 2))
        assert ids["w0"] not in seated and ids["w8"] in seated and ids["w7"] not in seated
        assert len(seated) == 7
        back = await entries.enter(db, tid, "w7")  # a withdrawn bot may come back
        assert back.round_no == 3
        await _finish(db, tid, step, rnd)
        step = await tournaments.close_round(db, tid, 2)
        assert ids["w7"] in {b for t in step.tables for b in t.bot_ids}
        await _finish(db, tid, step, rnd)
        assert (await tournaments.close_round(db, tid, 3)).finished
        with pytest.raises(ValueError, match="finished"):
            await entries.withdraw(db, tid, "w1")
        rows = {r.bot: r for r in await tournaments.standings_of(db, tid)}
        assert rows["w0"].withdrawn and not rows["w1"].withdrawn
        assert rows["w0"].rounds_played == 1 and rows["w8"].rounds_played == 2

    _run(migrated_database_url, body)


async def _byes(db: Database, tid: int, round_no: int) -> list[int]:
    async with db.transaction("byes") as conn:
        cursor = await conn.execute(
            query("round_byes"), {"tournament_id": tid, "round_no": round_no}
        )
        return [int(r[0]) for r in await cursor.fetchall()]


def test_a_bot_is_withdrawn_after_the_forfeit_limit(migrated_database_url: str) -> None:
    async def body(db: Database) -> None:
        names = [f"f{i}" for i in range(8)]
        await _bots(db, names)
        tid = await tournaments.create_tournament(
            db,
            name="",
            game="hart",
            bot_names=names,
            table_size=4,
            rounds=3,
            clock=CLOCK,
            forfeit_limit=1,
        )
        step = await tournaments.start(db, tid)
        await _finish(db, tid, step, random.Random(2), forfeits=frozenset({"f3"}))
        step = await tournaments.close_round(db, tid, 1)
        ids = {n: i for i, n in (await _names(db)).items()}
        assert ids["f3"] not in {b for t in step.tables for b in t.bot_ids}
        assert ids["f3"] not in await _byes(db, tid, 2)
        rows = {r.bot: r for r in await tournaments.standings_of(db, tid)}
        assert rows["f3"].withdrawn and not rows["f2"].withdrawn

    _run(migrated_database_url, body)


def test_standings_are_exact_in_sql_and_tables_name_their_match(migrated_database_url: str) -> None:
    async def body(db: Database) -> int:
        names = [f"e{i}" for i in range(12)]
        await _bots(db, names)
        tid = await tournaments.create_tournament(
            db, name="", game="hart", bot_names=names, table_size=6, rounds=5, clock=CLOCK
        )
        step = await tournaments.start(db, tid)
        rnd = random.Random(5)
        results = []
        while not step.finished:
            await _finish(db, tid, step, rnd)
            played = await tournaments.tables(db, tid, step.round_no)
            results.append(RoundResult(6, tuple(TableResult(t.bot_ids, t.ranks) for t in played)))
            step = await tournaments.close_round(db, tid, step.round_no)
        ids = {n: i for i, n in (await _names(db)).items()}
        exact = standings(ids.values(), results, {})
        stored = await tournaments.standings_of(db, tid)
        # The ratings differ per bot, so compare the order within each exact (score, tiebreak).
        by_bot = {e.bot: e for e in exact}
        keys = [(by_bot[r.bot_id].score, by_bot[r.bot_id].tiebreak) for r in stored]
        assert keys == sorted(keys, reverse=True)
        for row in stored:
            assert row.score == float(by_bot[row.bot_id].score)
        return tid

    tid = _run(migrated_database_url, body)
    with psycopg.connect(migrated_database_url) as conn:
        rows = conn.execute(
            "SELECT t.match_id, m.id FROM tournament_tables t JOIN matches m"
            " ON m.tournament_id = t.tournament_id AND m.round_no = t.round_no"
            " AND m.table_no = t.table_no WHERE t.tournament_id = %s",
            (tid,),
        ).fetchall()
    assert rows and all(linked == match for linked, match in rows)


def test_a_field_that_cannot_fill_a_table_is_refused_and_a_small_one_plays_one_table(
    migrated_database_url: str,
) -> None:
    async def body(db: Database) -> None:
        await _bots(db, ["s1", "s2", "s3"])
        with pytest.raises(ValueError, match="at least 3 entrants"):
            await tournaments.create_tournament(
                db, name="", game="hart", bot_names=["s1", "s2"], table_size=6, rounds=1,
                clock=CLOCK,
            )  # fmt: skip
        tid = await tournaments.create_tournament(
            db, name="", game="hart", bot_names=["s1", "s2", "s3"], table_size=6, rounds=None,
            clock=CLOCK,
        )  # fmt: skip
        step = await tournaments.start(db, tid)
        assert [len(t.bot_ids) for t in step.tables] == [3]
        info = await tournaments.tournament(db, tid)
        assert info is not None and info.rounds == 1  # a round-robin of 3 needs one table

    _run(migrated_database_url, body)


def test_an_openskill_tournament_rates_both_systems_and_ranks_the_board(
    migrated_database_url: str,
) -> None:
    async def body(db: Database) -> None:
        names = [f"o{i}" for i in range(8)]
        await _bots(db, names)
        tid = await tournaments.create_tournament(
            db, name="", game="hart", bot_names=names, table_size=4, rounds=2, clock=CLOCK,
            rating_system="openskill",
        )  # fmt: skip
        step = await tournaments.start(db, tid)
        rnd = random.Random(3)
        while not step.finished:
            await _finish(db, tid, step, rnd)
            step = await tournaments.close_round(db, tid, step.round_no)
        board = await tournaments.leaderboard(db, "hart", 20, "openskill")
        assert len(board) == 8 and all(row["games"] == 2 for row in board)
        ordinals = [row["rating"] for row in board]
        assert ordinals == sorted(ordinals, reverse=True)
        assert all(row["sigma"] < 25 / 3 for row in board)  # two games made everyone surer
        elo = await tournaments.leaderboard(db, "hart", 100)
        assert {row["name"] for row in elo} >= set(names)
        with pytest.raises(ValueError, match="unknown rating system"):
            await tournaments.leaderboard(db, "hart", 20, "glicko")

    _run(migrated_database_url, body)
