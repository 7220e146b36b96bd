"""The referee's storage calls: bots, the match lifecycle, the action log and `record()`."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

import psycopg
import pytest

from arena.storage import (
    Conflict,
    Database,
    DecisionRow,
    MatchStatus,
    NotFound,
    SeatResult,
    StorageError,
    TableKey,
)
from engines import Termination
from engines.driver import MatchDriver
from engines.replay import replay
from tests.engines.toy import HighCard

T = TypeVar("T")


def run(url: str, scenario: Callable[[Database], Awaitable[T]]) -> T:
    """Run `scenario` against a freshly opened (and migrated) `Database`."""

    async def main() -> T:
        db = await Database.open(url, max_size=4)
        try:
            await db.migrate()
            return await scenario(db)
        finally:
            await db.close()

    return asyncio.run(main())


def digest() -> bytes:
    return hashlib.sha256(secrets.token_bytes(16)).digest()


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(4)}"


async def two_bots(db: Database) -> list[int]:
    return [await db.create_bot(unique(name), digest()) for name in ("alice", "bob")]


# Bots


def test_bots_are_found_by_token_hash_and_name(migrated_database_url: str) -> None:
    name, token_hash = unique("carol"), digest()

    async def scenario(db: Database) -> None:
        bot_id = await db.create_bot(name, token_hash)
        by_hash = await db.bot_by_token_hash(token_hash)
        assert by_hash is not None and (by_hash.id, by_hash.name) == (bot_id, name)
        assert await db.bot_by_name(name) == by_hash
        assert await db.bot_by_token_hash(digest()) is None
        assert await db.bot_by_name(unique("nobody")) is None
        assert by_hash in await db.list_bots()

    run(migrated_database_url, scenario)
    with psycopg.connect(migrated_database_url) as conn:
        stored = conn.execute("SELECT token_hash FROM bots WHERE name = %s", [name]).fetchone()
    assert stored == (token_hash,)


def test_a_duplicate_bot_name_or_token_is_a_clear_conflict(migrated_database_url: str) -> None:
    name, token_hash = unique("dave"), digest()

    async def scenario(db: Database) -> None:
        await db.create_bot(name, token_hash)
        with pytest.raises(Conflict, match=f"a bot named '{name}' already exists"):
            await db.create_bot(name, digest())
        with pytest.raises(Conflict, match="token is already registered"):
            await db.create_bot(unique("eve"), token_hash)

    run(migrated_database_url, scenario)


@pytest.mark.parametrize("token_hash", [b"raw-token", "x" * 32, b""])
def test_only_a_sha256_digest_is_accepted_as_token_hash(
    migrated_database_url: str, token_hash: Any
) -> None:
    async def scenario(db: Database) -> None:
        with pytest.raises(ValueError, match="32-byte SHA-256 digest"):
            await db.create_bot(unique("frank"), token_hash)

    run(migrated_database_url, scenario)


# Matches


def test_match_lifecycle_with_its_seating_and_results(migrated_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        bots = await two_bots(db)
        match_id = await db.create_match("toy", 1, {"k": 1}, 2, 2**63 - 1, {"move": 2.5}, bots)
        pending = await db.match(match_id)
        assert pending is not None and pending.status is MatchStatus.PENDING
        assert pending.bot_ids == tuple(bots) and pending.table is None and not pending.rated
        assert (pending.options, pending.clock, pending.seed) == (
            {"k": 1},
            {"move": 2.5},
            2**63 - 1,
        )

        await db.start_match(match_id, "referee-a")
        await db.start_match(match_id, "referee-b")  # a new host resumes it
        running = await db.match(match_id)
        assert running is not None and running.status is MatchStatus.RUNNING
        assert running.host == "referee-b" and running.started_at is not None

        results = [
            SeatResult(rank=2, score=1.5, strikes=1, time_used=timedelta(seconds=3.25)),
            SeatResult(rank=1, score=4.0, forfeited=True),
        ]
        await db.finish_match(match_id, Termination.COMPLETED, results)
        done = await db.match(match_id)
        assert done is not None and done.status is MatchStatus.FINISHED
        assert done.termination == "completed" and done.finished_at is not None
        assert [(s.seat, s.rank, s.score, s.strikes, s.forfeited) for s in done.seating] == [
            (0, 2, 1.5, 1, False),
            (1, 1, 4.0, 0, True),
        ]
        assert done.seating[0].time_used == timedelta(seconds=3.25)

        with pytest.raises(Conflict, match=f"start match {match_id} .*the match is finished"):
            await db.start_match(match_id, "referee-c")
        with pytest.raises(Conflict, match="the match is finished"):
            await db.finish_match(match_id, Termination.COMPLETED, results)
        with pytest.raises(Conflict, match="the match is finished"):
            await db.abort_match(match_id, "too late")

    run(migrated_database_url, scenario)


def test_abort_and_unknown_matches(migrated_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        bots = await two_bots(db)
        match_id = await db.create_match("toy", 1, {}, 2, 1, {}, bots)
        await db.abort_match(match_id, "host lost")
        aborted = await db.match(match_id)
        assert aborted is not None and aborted.status is MatchStatus.ABORTED
        assert aborted.termination == "host lost"
        assert await db.match(10**12) is None
        with pytest.raises(NotFound, match=r"start match 1000000000000 .*no such match"):
            await db.start_match(10**12, "referee-a")
        with pytest.raises(NotFound, match="no such match"):
            await db.record(10**12)
        with pytest.raises(NotFound, match=r"bot_id\)=\(999999999\) is not present"):
            await db.create_match("toy", 1, {}, 2, 1, {}, [bots[0], 999_999_999])

    run(migrated_database_url, scenario)


def test_create_match_checks_its_arguments(migrated_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        with pytest.raises(ValueError, match="3 seats but 2 bots"):
            await db.create_match("toy", 1, {}, 3, 1, {}, [1, 2])
        with pytest.raises(ValueError, match="does not fit in a signed 64-bit integer"):
            await db.create_match("toy", 1, {}, 2, 2**63, {}, [1, 2])

    run(migrated_database_url, scenario)


def test_list_matches_filters_by_status_game_and_bot(migrated_database_url: str) -> None:
    game = unique("game")

    async def scenario(db: Database) -> None:
        a, b = await two_bots(db)
        c = await db.create_bot(unique("carl"), digest())
        first = await db.create_match(game, 1, {}, 2, 1, {}, [a, b])
        second = await db.create_match(game, 1, {}, 2, 2, {}, [a, c])
        await db.start_match(second, "referee-a")

        def ids(rows: list[Any]) -> list[int]:
            return [row.id for row in rows]

        assert ids(await db.list_matches(game=game)) == [second, first]
        assert ids(await db.list_matches(game=game, status=MatchStatus.RUNNING)) == [second]
        assert ids(await db.list_matches(game=game, status=MatchStatus.PENDING)) == [first]
        assert ids(await db.list_matches(bot_id=b)) == [first]
        assert ids(await db.list_matches(bot_id=c, status=MatchStatus.PENDING)) == []
        assert ids(await db.list_matches(game=game, limit=1)) == [second]
        listed = await db.list_matches(bot_id=c)
        assert [s.bot_name for s in listed[0].seating][1].startswith("carl-")

    run(migrated_database_url, scenario)


def test_a_played_match_comes_back_as_a_record_that_replays(migrated_database_url: str) -> None:
    rules = HighCard()
    seed = 20240601

    async def scenario(db: Database) -> None:
        bots = await two_bots(db)
        match_id = await db.create_match(rules.name, rules.version, {}, 2, seed, {}, bots)
        await db.start_match(match_id, "referee-a")
        driver = MatchDriver(rules, 2, {}, seed)
        state = driver.state
        moves = []
        while (decision := rules.decision(state)) is not None:
            joint = {s: rules.legal_actions(state, s).default() for s in sorted(decision.seats)}
            wire = {s: rules.dump_action(a) for s, a in joint.items()}
            await db.record_decision(
                DecisionRow(
                    match_id,
                    decision.number,
                    decision.label,
                    wire,
                    elapsed={s: timedelta(milliseconds=10 * s + 5) for s in joint},
                    strikes={0: "timeout"} if decision.number == 1 else {},
                )
            )
            moves.append(wire)
            state = driver.play(joint).after
        outcome = rules.outcome(state)
        assert outcome is not None

        record = await db.record(match_id)
        assert record.moves == tuple(moves) and len(moves) > 2
        assert (record.game, record.rules_version, record.seats, record.seed) == (
            "toy",
            1,
            2,
            seed,
        )
        assert rules.outcome(replay(rules, record)) == outcome

        logged = await db.decisions(match_id)
        assert [d.number for d in logged] == list(range(len(moves)))
        assert logged[1].strikes == {0: "timeout"} and logged[0].strikes == {}
        assert logged[1].elapsed == {0: timedelta(milliseconds=5), 1: timedelta(milliseconds=15)}
        assert all(d.created_at is not None for d in logged)

    run(migrated_database_url, scenario)


def test_a_gap_in_the_log_is_reported_by_record(migrated_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        match_id = await db.create_match("toy", 1, {}, 2, 3, {}, await two_bots(db))
        await db.record_decision(DecisionRow(match_id, 0, "play", {0: 1, 1: 2}))
        await db.record_decision(DecisionRow(match_id, 2, "play", {0: 1, 1: 2}))
        with pytest.raises(
            StorageError, match=f"record of match {match_id}: decision 1 is missing"
        ):
            await db.record(match_id)

    run(migrated_database_url, scenario)


# Tournament tables


def _tournament(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "INSERT INTO tournaments (name, game, table_size, rounds, starts_at, seed)"
            " VALUES ('cup', 'toy', 2, 3, now(), 7) RETURNING id"
        ).fetchone()
    assert row is not None
    return int(row[0])


def test_a_tournament_table_gets_one_match_however_often_it_is_created(
    migrated_database_url: str,
) -> None:
    tournament_id = _tournament(migrated_database_url)
    table = TableKey(tournament_id, 1, 4)

    async def scenario(db: Database) -> None:
        bots = await two_bots(db)

        async def create() -> int:
            return await db.create_match("toy", 1, {}, 2, 5, {}, bots, table, rated=True)

        first = await create()
        assert await create() == first  # a retried task
        assert set(await asyncio.gather(*(create() for _ in range(6)))) == {first}
        stored = await db.match(first)
        assert stored is not None and stored.table == table and stored.rated
        assert stored.bot_ids == tuple(bots)
        with pytest.raises(Conflict, match=f"match {first} is already there"):
            await db.create_match("toy", 1, {}, 2, 5, {}, bots[::-1], table)
        other = await db.create_match("toy", 1, {}, 2, 5, {}, bots, TableKey(tournament_id, 1, 5))
        assert other != first

    run(migrated_database_url, scenario)
    with psycopg.connect(migrated_database_url) as conn:
        count = conn.execute(
            "SELECT count(*) FROM matches WHERE tournament_id = %s AND table_no = 4",
            [tournament_id],
        ).fetchone()
    assert count == (1,)
