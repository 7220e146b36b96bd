"""Match leases and fencing on a real Postgres: claims, renewals, takeovers and stale hosts.

A claim bumps a match's lease epoch; every write of a host carries its epoch and is refused
(`Fenced`) once another referee took the match over, in the same transaction as the write.
Tests that scan for lapsed matches get a database of their own, so no other test's matches show up.
"""

from __future__ import annotations

import asyncio
import hashlib
import pickle
import secrets
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

import psycopg
import pytest

from arena.storage import Conflict, Database, DecisionRow, DecisionWriter, MatchStatus, SeatResult
from arena.storage.errors import Fenced
from arena.storage.sql import query
from engines import Termination

T = TypeVar("T")
LONG = timedelta(seconds=30)
"""A lease that cannot lapse during a test."""
SHORT = timedelta(milliseconds=50)
"""A lease that lapses after `lapse()`."""


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


async def lapse() -> None:
    """Wait until a `SHORT` lease taken before has lapsed."""
    await asyncio.sleep(SHORT.total_seconds() * 3)


async def new_match(db: Database, *, started: bool = False) -> int:
    """A pending (or running, unleased) match of two new bots."""
    bots = [
        await db.create_bot(
            f"{name}-{secrets.token_hex(4)}", hashlib.sha256(secrets.token_bytes(8)).digest()
        )
        for name in ("alice", "bob")
    ]
    match_id = await db.create_match("toy", 1, {}, 2, secrets.randbits(40), {}, bots)
    if started:
        await db.start_match(match_id, "creator")
    return match_id


def decision(match_id: int, number: int, epoch: int) -> DecisionRow:
    return DecisionRow(match_id, number, "play", {0: number, 1: epoch}, epoch=epoch)


async def lock_waiters(url: str, at_least: int) -> None:
    """Wait until `at_least` sessions of the test database wait for a row or transaction lock."""
    dbname = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        for _ in range(500):
            cursor = await conn.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = %s AND wait_event_type = 'Lock'",
                [dbname],
            )
            row = await cursor.fetchone()
            if row is not None and row[0] >= at_least:
                return
            await asyncio.sleep(0.01)
    raise AssertionError(f"fewer than {at_least} sessions ever waited for a lock")


# Claims, renewals, releases


def test_claim_renew_lapse_and_takeover(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        match_id = await new_match(db)
        assert await db.match_host(match_id) == (None, 0)
        assert await db.claim_match(match_id, "a", LONG) == 1
        assert await db.claim_match(match_id, "b", LONG) is None  # a's lease is live
        assert await db.claim_match(match_id, "a", LONG) == 2  # a restarted: a new epoch
        assert await db.match_host(match_id) == ("a", 2)

        assert await db.renew_leases("a", {match_id: 2}, LONG) == {match_id}
        assert await db.renew_leases("a", {match_id: 1}, LONG) == set()  # stale epoch
        assert await db.renew_leases("b", {match_id: 2}, LONG) == set()  # not b's
        assert await db.claim_lapsed_matches("b", LONG, 10) == []

        assert await db.renew_leases("a", {match_id: 2}, SHORT) == {match_id}
        await lapse()  # a stops renewing (dead)
        assert await db.claim_lapsed_matches("b", LONG, 10) == [(match_id, 3, "a")]
        assert await db.renew_leases("a", {match_id: 2}, SHORT) == set()  # a learns it lost it
        assert await db.claim_match(match_id, "a", SHORT) is None
        assert await db.claim_lapsed_matches("c", LONG, 10) == []  # b's lease is live
        row = await db.match(match_id)
        assert row is not None and (row.host, row.lease_epoch) == ("b", 3)
        assert [m.lease_epoch for m in await db.list_matches(game="toy")] == [3]

    run(fresh_database_url, scenario)


def test_a_host_does_not_take_over_a_match_it_still_runs(fresh_database_url: str) -> None:
    """The database was down, so the host's lease lapsed while it kept the match running: its
    own scan must not take the match from itself (a new epoch fences the runner and stops the
    match for a lease period); its renewal under the old epoch extends the lease instead."""

    async def scenario(db: Database) -> None:
        match_id = await new_match(db)
        assert await db.claim_match(match_id, "a", SHORT) == 1
        await lapse()
        assert await db.claim_lapsed_matches("a", LONG, 10, [match_id]) == []
        assert await db.renew_leases("a", {match_id: 1}, LONG) == {match_id}
        assert await db.match_host(match_id) == ("a", 1)
        await db.renew_leases("a", {match_id: 1}, SHORT)
        await lapse()
        # Another referee may still take it (the host is stalled, for all it knows), and a host
        # that no longer runs the match takes it back as it would any lapsed match.
        assert await db.claim_lapsed_matches("a", LONG, 10, []) == [(match_id, 2, "a")]

    run(fresh_database_url, scenario)


def test_a_claim_needs_an_unfinished_match_that_is_free(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        legacy = await new_match(db, started=True)  # host "creator", no lease: free
        assert await db.claim_match(legacy, "a", LONG) == 1
        ended = await new_match(db)
        await db.abort_match(ended, "gone")
        assert await db.claim_match(ended, "a", LONG) is None
        assert await db.claim_match(10**12, "a", LONG) is None
        assert await db.match_host(10**12) is None
        with pytest.raises(ValueError, match="a lease must be positive"):
            await db.claim_match(legacy, "a", timedelta(0))

    run(fresh_database_url, scenario)


def test_assign_places_a_pending_match_for_its_target_to_claim(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        match_id = await new_match(db)
        assert await db.assign_match(match_id, "b", LONG)
        assert await db.match_host(match_id) == ("b", 0)  # the epoch waits for b's claim
        assert await db.claim_lapsed_matches("c", LONG, 10) == []
        assert await db.claim_match(match_id, "c", LONG) is None
        assert await db.claim_match(match_id, "b", LONG) == 1
        await db.start_match(match_id, "b", 1)
        assert not await db.assign_match(match_id, "c", LONG)  # running: placed already
        assert await db.match_host(match_id) == ("b", 1)

        unclaimed = await new_match(db)
        assert await db.assign_match(unclaimed, "d", SHORT)
        await lapse()  # d never claimed it
        assert await db.claim_lapsed_matches("e", LONG, 10) == [(unclaimed, 1, "d")]

    run(fresh_database_url, scenario)


def test_claim_own_matches_bumps_every_unfinished_match_of_the_host(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database) -> None:
        first, second, done, other = [await new_match(db) for _ in range(4)]
        for match_id in (second, first, done):
            assert await db.claim_match(match_id, "a", LONG) == 1
        await db.start_match(done, "a", 1)
        await db.finish_match(done, Termination.COMPLETED, [SeatResult(1, 1.0)] * 2, 1)
        assert await db.claim_match(other, "b", LONG) == 1
        assert await db.claim_own_matches("a", LONG) == [(first, 2), (second, 2)]
        assert await db.claim_own_matches("nobody", LONG) == []
        assert await db.match_host(other) == ("b", 1)

    run(fresh_database_url, scenario)


def test_lapsed_matches_are_released_or_expired_and_young_pending_ones_wait(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database) -> None:
        young = await new_match(db)  # pending, no host: its creator is about to claim it
        released = await new_match(db, started=True)
        expired = await new_match(db, started=True)
        held = await new_match(db, started=True)
        await db.claim_match(released, "a", LONG)
        await db.claim_match(expired, "a", SHORT)
        await db.claim_match(held, "a", LONG)
        assert await db.release_matches("a", [released]) == [released]
        await lapse()
        assert await db.claim_lapsed_matches("b", LONG, 1) == [(released, 2, None)]  # oldest first
        assert await db.claim_lapsed_matches("b", LONG, 10) == [(expired, 2, "a")]
        assert await db.claim_lapsed_matches("b", LONG, 0) == []
        # Older than the lease, the pending match is an orphan and is taken too.
        assert await db.claim_lapsed_matches("c", timedelta(milliseconds=1), 10) == [
            (young, 1, None)
        ]
        assert await db.match_host(held) == ("a", 1)

    run(fresh_database_url, scenario)


def test_two_referees_scanning_at_once_never_take_the_same_match(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database) -> None:
        other = await Database.open(fresh_database_url, max_size=2)
        try:
            for _ in range(5):
                ids = [await new_match(db, started=True) for _ in range(20)]
                await db.release_matches("creator")
                a, b = await asyncio.gather(
                    db.claim_lapsed_matches("a", LONG, 15),
                    other.claim_lapsed_matches("b", LONG, 15),
                )
                taken_a, taken_b = {m for m, _, _ in a}, {m for m, _, _ in b}
                assert not taken_a & taken_b
                assert taken_a | taken_b == set(ids)
                assert {e for _, e, _ in a + b} == {1}
        finally:
            await other.close()

    run(fresh_database_url, scenario)


def test_release_clears_the_lease_and_can_hand_over_match_by_match(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database) -> None:
        ids = [await new_match(db) for _ in range(3)]
        for match_id in ids:
            await db.claim_match(match_id, "a", LONG)
        assert await db.release_matches("a", [ids[1], 10**12]) == [ids[1]]
        assert await db.release_matches("b") == []
        assert await db.release_matches("a") == [ids[0], ids[2]]
        async with db.transaction("read leases") as conn:
            cursor = await conn.execute(
                "SELECT count(*) FROM matches WHERE host IS NOT NULL OR lease_expires IS NOT NULL"
            )
            assert await cursor.fetchone() == (0,)
        assert await db.claim_match(ids[1], "b", LONG) == 2

    run(fresh_database_url, scenario)


def test_match_hosts_of_bot_lists_its_unfinished_matches(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        alice, bob, carl = [
            await db.create_bot(f"bot-{i}", hashlib.sha256(secrets.token_bytes(8)).digest())
            for i in range(3)
        ]
        hosted = await db.create_match("toy", 1, {}, 2, 1, {}, [alice, bob])
        pending = await db.create_match("toy", 1, {}, 2, 2, {}, [carl, alice])
        done = await db.create_match("toy", 1, {}, 2, 3, {}, [alice, carl])
        await db.claim_match(hosted, "a", LONG)
        await db.abort_match(done, "over")
        assert await db.match_hosts_of_bot(alice) == [(hosted, "a"), (pending, None)]
        assert await db.match_hosts_of_bot(bob) == [(hosted, "a")]
        assert await db.match_hosts_of_bot(10**12) == []

    run(fresh_database_url, scenario)


# Fenced writes


def test_a_stale_decision_is_refused_and_a_current_one_in_its_batch_stored(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database) -> None:
        match_id = await new_match(db)
        assert await db.claim_match(match_id, "a", SHORT) == 1
        await db.start_match(match_id, "a", 1)
        assert await db.write_decisions([decision(match_id, 0, 1), decision(match_id, 1, 1)]) == [
            None,
            None,
        ]
        await lapse()
        assert await db.claim_lapsed_matches("b", LONG, 10) == [(match_id, 2, "a")]
        # a wakes up and writes decision 2; b, resumed from the log, writes its own decision 2.
        stale, current = await db.write_decisions(
            [decision(match_id, 2, 1), decision(match_id, 2, 2)]
        )
        assert isinstance(stale, Fenced) and isinstance(stale, Conflict) and current is None
        assert (stale.match_id, stale.epoch, stale.current) == (match_id, 1, 2)
        assert str(stale) == (
            f"record decision 2 of match {match_id}: fenced, match {match_id} is at lease"
            " epoch 2, not 1: another referee hosts it now"
        )
        assert str(pickle.loads(pickle.dumps(stale))) == str(stale)  # e.g. across processes
        logged = await db.decisions(match_id)
        assert [(d.number, d.epoch, d.joint) for d in logged] == [
            (0, 1, {0: 0, 1: 1}),
            (1, 1, {0: 1, 1: 1}),
            (2, 2, {0: 2, 1: 2}),
        ]
        assert len((await db.record(match_id)).moves) == 3  # contiguous: it replays

    run(fresh_database_url, scenario)


def test_the_row_by_row_fallback_is_fenced_too(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        match_id, other = await new_match(db), await new_match(db)
        assert await db.claim_match(match_id, "a", LONG) == 1
        await db.write_decisions([decision(match_id, 0, 1)])
        clash = DecisionRow(match_id, 0, "play", {0: 9, 1: 9}, epoch=1)  # refused: COPY fails
        outcomes = await db.write_decisions(
            [clash, decision(other, 0, 5), decision(match_id, 1, 1), decision(10**12, 0, 0)]
        )
        assert isinstance(outcomes[0], Conflict) and not isinstance(outcomes[0], Fenced)
        assert isinstance(outcomes[1], Fenced) and outcomes[1].current == 0
        assert outcomes[2] is None
        assert "a referenced row does not exist" in str(outcomes[3])
        assert [d.number for d in await db.decisions(match_id)] == [0, 1]
        assert await db.decisions(other) == []

    run(fresh_database_url, scenario)


def test_start_finish_and_abort_are_fenced(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        match_id = await new_match(db)
        assert await db.claim_match(match_id, "a", LONG) == 1
        with pytest.raises(Fenced, match=f"start match {match_id} .*epoch 1, not 0"):
            await db.start_match(match_id, "a")
        await db.start_match(match_id, "a", 1)
        assert await db.claim_match(match_id, "a", LONG) == 2  # a restarted
        results = [SeatResult(1, 1.0), SeatResult(2, 0.0)]
        with pytest.raises(Fenced, match=f"finish match {match_id}: fenced.*epoch 2, not 1"):
            await db.finish_match(match_id, Termination.COMPLETED, results, 1)
        with pytest.raises(Fenced, match="epoch 2, not 1"):
            await db.abort_match(match_id, "host error", 1)
        row = await db.match(match_id)
        assert row is not None and row.status is MatchStatus.RUNNING
        await db.finish_match(match_id, Termination.COMPLETED, results, 2)
        with pytest.raises(Conflict, match="the match is finished") as refused:
            await db.finish_match(match_id, Termination.COMPLETED, results, 2)
        assert not isinstance(refused.value, Fenced)

        admin = await new_match(db)
        assert await db.claim_match(admin, "a", LONG) == 1
        with pytest.raises(Fenced):
            await db.abort_match(admin, "host error", 0)
        await db.abort_match(admin, "an administrator's abort")  # epoch None: never fenced
        row = await db.match(admin)
        assert row is not None and row.status is MatchStatus.ABORTED

    run(fresh_database_url, scenario)


def test_a_fenced_row_fails_only_its_own_writer(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        stale_match, current_match = await new_match(db), await new_match(db)
        await db.claim_match(stale_match, "b", LONG)
        await db.claim_match(current_match, "a", LONG)
        writer = DecisionWriter(db, max_delay=timedelta(milliseconds=200))
        await writer.start()
        try:
            stale, current = await asyncio.gather(
                writer.write(decision(stale_match, 0, 0)),
                writer.write(decision(current_match, 0, 1)),
                return_exceptions=True,
            )
        finally:
            await writer.stop()
        assert writer.batches == 1  # one transaction carried both
        assert isinstance(stale, Fenced) and stale.match_id == stale_match
        assert current is None
        assert await db.decisions(stale_match) == []
        assert [d.epoch for d in await db.decisions(current_match)] == [1]

    run(fresh_database_url, scenario)


# A takeover racing a decision batch: committed before the epoch bump, or refused


def test_a_batch_behind_an_uncommitted_takeover_is_refused(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        match_id = await new_match(db)
        assert await db.claim_match(match_id, "a", SHORT) == 1
        await lapse()
        async with await psycopg.AsyncConnection.connect(fresh_database_url) as takeover:
            params: dict[str, Any] = {"match_id": match_id, "host": "b", "lease": LONG}
            cursor = await takeover.execute(query("claim_match"), params)
            assert await cursor.fetchone() == (2,)
            batch = asyncio.create_task(db.write_decisions([decision(match_id, 0, 1)]))
            await lock_waiters(fresh_database_url, 1)  # the batch waits for the takeover
            assert not batch.done()
            await takeover.commit()
            (outcome,) = await batch
        assert isinstance(outcome, Fenced) and outcome.current == 2
        assert await db.decisions(match_id) == []

    run(fresh_database_url, scenario)


def test_a_takeover_waits_for_a_batch_in_flight_and_sees_its_decision(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database) -> None:
        match_id = await new_match(db)
        assert await db.claim_match(match_id, "a", SHORT) == 1
        await lapse()
        async with await psycopg.AsyncConnection.connect(fresh_database_url) as blocker:
            # An uncommitted row with the same key holds the batch's COPY after its fence.
            await blocker.execute(
                "INSERT INTO decisions (match_id, number, label, joint) VALUES (%s, 0, 'x', '{}')",
                [match_id],
            )
            batch = asyncio.create_task(db.write_decisions([decision(match_id, 0, 1)]))
            await lock_waiters(fresh_database_url, 1)
            takeover = asyncio.create_task(db.claim_match(match_id, "b", LONG))
            await lock_waiters(fresh_database_url, 2)  # the takeover waits for the batch
            assert not takeover.done()
            await blocker.rollback()
            assert await batch == [None]
            assert await takeover == 2
        assert [(d.number, d.epoch) for d in await db.decisions(match_id)] == [(0, 1)]

    run(fresh_database_url, scenario)


def test_a_racing_decision_is_committed_before_the_takeover_or_refused(
    fresh_database_url: str,
) -> None:
    async def scenario(db: Database) -> None:
        new_host = await Database.open(fresh_database_url, max_size=2)
        outcomes: list[str] = []
        try:
            for _ in range(20):
                match_id = await new_match(db)
                assert await db.claim_match(match_id, "a", timedelta(milliseconds=1)) == 1
                await asyncio.sleep(0.005)

                async def take_over(match_id: int = match_id) -> list[DecisionRow]:
                    assert await new_host.claim_match(match_id, "b", LONG) == 2
                    return await new_host.decisions(match_id)  # what b resumes from

                (outcome,), seen = await asyncio.gather(
                    db.write_decisions([decision(match_id, 0, 1)]), take_over()
                )
                stored = await db.decisions(match_id)
                if outcome is None:
                    assert [(d.number, d.epoch) for d in seen] == [(0, 1)]
                    assert seen == stored
                    outcomes.append("committed first")
                else:
                    assert isinstance(outcome, Fenced), outcome
                    assert seen == stored == []
                    outcomes.append("refused")
        finally:
            await new_host.close()
        print(
            f"racing decisions: {outcomes.count('committed first')} committed first,"
            f" {outcomes.count('refused')} refused"
        )

    run(fresh_database_url, scenario)
