"""The watchdog: a slow round is dispatched again only for a table without a match; a round whose
close was lost is closed by the watchdog itself; a round never dispatched is dispatched soon.

The first test is a regression of the chaos soak (bench/chaos.py --minutes 30 --seed 26): rounds
whose matches were
merely long were dispatched again every minute, each time adding a task per table that held a worker
slot for as long as its match played, until other tournaments' finished rounds waited minutes for a
worker to close them.
"""

from __future__ import annotations

import asyncio
import time
from types import ModuleType
from typing import Any

import psycopg
import pytest

from arena.storage import Database, Unavailable
from arena.tournament.recovery import REDISPATCH_AFTER, UNSENT_AFTER, Nudge, Repair, stalled
from tests.dbfixtures import migrate_database

pytestmark = pytest.mark.integration


@pytest.fixture
def tasks(redis_server_url: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """`workers.tasks`, imported with the suite's Redis named: the module builds its Celery app
    on import, and with no ARENA_REDIS_URL that app would start an embedded Redis in the user's
    data directory (a CI run with nothing set once did, from here)."""
    monkeypatch.setenv("ARENA_REDIS_URL", redis_server_url)
    import workers.tasks  # after the URL is set (see above)

    return workers.tasks


def later() -> float:
    """Long after a round dispatched now (taken when asked: a suite may run a test long after
    it imports the module)."""
    return time.time() + 10 * REDISPATCH_AFTER


def _round_of_two_tables(conn: psycopg.Connection[Any], hosted: int) -> None:
    """Tournament 1, running, round 1 dispatched; the first `hosted` tables have a running match."""
    for bot in range(1, 5):
        conn.execute(
            "INSERT INTO bots (id, name, token_hash) VALUES (%s, %s, %s)",
            (bot, f"b{bot}", bytes([bot]) * 32),
        )
    conn.execute(
        "INSERT INTO tournaments (id, name, game, table_size, rounds, starts_at, status, seed, "
        "current_round) VALUES (1, 't', 'crossing', 2, 3, now(), 'running', 1, 1)"
    )
    conn.execute(
        "INSERT INTO rounds (tournament_id, round_no, status, dispatched_at) "
        "VALUES (1, 1, 'playing', now())"
    )
    for table in (1, 2):
        bots = [2 * table - 1, 2 * table]
        conn.execute("INSERT INTO tournament_tables VALUES (1, 1, %s, NULL, %s)", (table, bots))
        if table <= hosted:
            conn.execute(
                "INSERT INTO matches (game, rules_version, seats, seed, status, tournament_id, "
                "round_no, table_no) VALUES ('crossing', 1, 2, 1, 'running', 1, 1, %s)",
                (table,),
            )


@pytest.mark.parametrize(("hosted", "expected"), [(2, []), (1, [Nudge.DISPATCH])])
def test_a_long_round_is_dispatched_again_only_for_a_table_without_a_match(
    fresh_database_url: str, hosted: int, expected: list[Nudge]
) -> None:
    migrate_database(fresh_database_url)
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        _round_of_two_tables(conn, hosted)

    async def nudges(now: float) -> list[Nudge]:
        async with await Database.open(fresh_database_url) as db:
            return [r.action for r in await stalled(db, now)]

    assert asyncio.run(nudges(time.time())) == []
    assert asyncio.run(nudges(later())) == expected


def _decided_round(conn: psycopg.Connection[Any]) -> None:
    """Tournament 1 (crossing, 4 entrants, 3 rounds), round 1 dispatched long ago and both its
    tables' matches finished: the state a lost close leaves (the worker that ran the last table
    killed before the chord's callback was sent, or the callback failed on a database outage)."""
    _round_of_two_tables(conn, hosted=0)
    conn.execute("UPDATE rounds SET dispatched_at = now() - interval '1 hour'")
    for bot in range(1, 5):
        conn.execute("INSERT INTO entries (tournament_id, bot_id) VALUES (1, %s)", (bot,))
    for table in (1, 2):
        (match_id,) = conn.execute(
            "INSERT INTO matches (game, rules_version, seats, seed, status, tournament_id, "
            "round_no, table_no, finished_at, termination) "
            "VALUES ('crossing', 1, 2, 1, 'finished', 1, 1, %s, now(), 'normal') RETURNING id",
            (table,),
        ).fetchone() or (0,)
        for seat in (0, 1):
            conn.execute(
                "INSERT INTO seats (match_id, seat, bot_id, rank, score) "
                "VALUES (%s, %s, %s, %s, 0)",
                (match_id, seat, 2 * table - 1 + seat, seat + 1),
            )


def test_the_watchdog_closes_a_decided_round_itself_and_dispatches_the_next(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch, tasks: ModuleType
) -> None:
    # Regression of bench/chaos.py --minutes 7 --seed 27 --kinds worker-kill,redis-stop,
    # postgres-stop: the watchdog only queued a `close_round`, which waited behind the backlog the
    # faults had left (tests/tournament/test_close_first.py) as the watchdog's own tick had.
    migrate_database(fresh_database_url)
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        _decided_round(conn)
    monkeypatch.setenv("ARENA_DATABASE_URL", fresh_database_url)
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(tasks, "dispatch", lambda tid, step: sent.append((tid, step.round_no)))
    queued: list[tuple[Any, ...]] = []
    monkeypatch.setattr(tasks.close_round, "delay", lambda *args: queued.append(args))

    assert tasks.watchdog() == ["close 1/1"]

    with psycopg.connect(fresh_database_url) as conn:
        rounds = conn.execute("SELECT round_no, status::text FROM rounds ORDER BY 1").fetchall()
    assert rounds == [(1, "finished"), (2, "playing")]
    assert sent == [(1, 2)]
    assert queued == []
    assert tasks.watchdog() == [], "a closed round needs no second repair"


def test_one_failing_repair_does_not_stop_the_watchdog_repairing_the_others(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch, tasks: ModuleType
) -> None:
    migrate_database(fresh_database_url)
    monkeypatch.setenv("ARENA_DATABASE_URL", fresh_database_url)
    broken, fine = Repair(7, 2, Nudge.ADVANCE), Repair(1, 1, Nudge.CLOSE)

    async def found(db: Database) -> list[Repair]:
        return [broken, fine]

    repaired: list[Repair] = []

    def repair_round(repair: Repair) -> None:
        if repair is broken:
            raise LookupError("no tournament 7")
        repaired.append(repair)

    monkeypatch.setattr(tasks.tournaments, "stalled", found)
    monkeypatch.setattr(tasks, "repair_round", repair_round)
    assert tasks.watchdog() == ["close 1/1"]
    assert repaired == [fine]


def test_a_round_paired_but_never_dispatched_is_dispatched_soon(
    fresh_database_url: str,
) -> None:
    # The call that closed round 1 paired round 2, then failed before dispatching it (Postgres
    # went away); only that call dispatches, so round 2 waited for the one-minute redispatch
    # (83 s in the soak above).
    migrate_database(fresh_database_url)
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        _round_of_two_tables(conn, hosted=0)
        conn.execute("UPDATE rounds SET dispatched_at = NULL")

    async def nudges(now: float) -> list[Nudge]:
        async with await Database.open(fresh_database_url) as db:
            return [r.action for r in await stalled(db, now)]

    assert asyncio.run(nudges(time.time())) == []
    assert asyncio.run(nudges(time.time() + UNSENT_AFTER + 1)) == [Nudge.DISPATCH]
    assert UNSENT_AFTER < REDISPATCH_AFTER / 2


def test_a_close_that_meets_a_database_outage_is_retried(
    monkeypatch: pytest.MonkeyPatch, tasks: ModuleType
) -> None:
    # It used to fail for good ("raised unexpected: Unavailable"), leaving the round to the
    # watchdog.
    class Retried(Exception):
        pass

    async def outage(db: Database, tournament_id: int, round_no: int) -> None:
        raise Unavailable(f"close round {round_no}: the database is unreachable")

    async def no_db(func: Any, *args: Any) -> Any:
        return await func(None, *args)

    countdowns: list[float] = []

    def retry(countdown: float) -> Retried:
        countdowns.append(countdown)
        return Retried()

    monkeypatch.setattr(tasks, "_with_db", no_db)
    monkeypatch.setattr(tasks.tournaments, "close_round", outage)
    monkeypatch.setattr(tasks.close_round, "retry", retry)
    with pytest.raises(Retried):
        tasks.close_round([], 1, 1)
    assert countdowns and countdowns[0] > 0


def test_a_tournament_started_twice_dispatches_its_first_round_once(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch, tasks: ModuleType
) -> None:
    # start_due sends a start every 2 s while the tournament is still scheduled: in the chaos
    # soak each tournament's round 1 was dispatched three times, three tasks per table each
    # holding a worker slot for the whole match.
    migrate_database(fresh_database_url)
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        for bot in range(1, 5):
            conn.execute(
                "INSERT INTO bots (id, name, token_hash) VALUES (%s, %s, %s)",
                (bot, f"b{bot}", bytes([bot]) * 32),
            )
        conn.execute(
            "INSERT INTO tournaments (id, name, game, table_size, rounds, starts_at, seed) "
            "VALUES (1, 't', 'crossing', 2, 3, now(), 1)"
        )
        for bot in range(1, 5):
            conn.execute("INSERT INTO entries (tournament_id, bot_id) VALUES (1, %s)", (bot,))
    monkeypatch.setenv("ARENA_DATABASE_URL", fresh_database_url)
    sent: list[tuple[int, int, int]] = []
    monkeypatch.setattr(
        tasks, "dispatch", lambda tid, step: sent.append((tid, step.round_no, len(step.tables)))
    )
    assert tasks.start_tournament(1) == 1
    assert tasks.start_tournament(1) == 1
    assert sent == [(1, 1, 2)]
