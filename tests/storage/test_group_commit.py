"""Group commit: concurrent decisions share transactions, and every waiter learns the outcome."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import TypeVar

import psycopg
import pytest

from arena.storage import Conflict, Database, DecisionRow, DecisionWriter, NotFound, StorageError
from engines import Json

T = TypeVar("T")


class FakeSink:
    """Records the batches it gets; fails the ones `fail` says to."""

    def __init__(self, delay: float = 0.0, fail: Exception | None = None) -> None:
        self.batches: list[list[DecisionRow]] = []
        self.delay = delay
        self.fail = fail
        self.refuse: set[int] = set()

    async def write_decisions(self, rows: Sequence[DecisionRow]) -> Sequence[StorageError | None]:
        self.batches.append(list(rows))
        await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail
        return [
            Conflict(f"row {r.number} refused") if r.number in self.refuse else None for r in rows
        ]


def row(match_id: int, number: int) -> DecisionRow:
    return DecisionRow(match_id, number, "play", {0: number, 1: "pass"})


async def with_writer(
    sink: FakeSink, body: Callable[[DecisionWriter], Awaitable[T]], **kw: int
) -> T:
    writer = DecisionWriter(sink, **kw)  # type: ignore[arg-type]
    await writer.start()
    try:
        return await body(writer)
    finally:
        await writer.stop()


def test_concurrent_writes_are_batched_and_each_returns_after_its_commit() -> None:
    sink = FakeSink(delay=0.005)
    finished: list[int] = []

    async def write(writer: DecisionWriter, number: int) -> None:
        await writer.write(row(1, number))
        finished.append(number)
        assert any(r.number == number for batch in sink.batches for r in batch)

    async def body(writer: DecisionWriter) -> None:
        await asyncio.gather(*(write(writer, n) for n in range(200)))

    asyncio.run(with_writer(sink, body))
    assert sorted(finished) == list(range(200))
    assert sorted(r.number for batch in sink.batches for r in batch) == list(range(200))
    assert len(sink.batches) <= 3


def test_a_batch_never_exceeds_max_rows() -> None:
    sink = FakeSink()

    async def body(writer: DecisionWriter) -> None:
        await asyncio.gather(*(writer.write(row(1, n)) for n in range(25)))

    asyncio.run(with_writer(sink, body, max_rows=10))
    assert [len(b) for b in sink.batches] == [10, 10, 5]


def test_a_lone_write_waits_about_max_delay_not_longer() -> None:
    sink = FakeSink()

    async def body(writer: DecisionWriter) -> float:
        loop = asyncio.get_running_loop()
        begun = loop.time()
        await writer.write(row(1, 0))
        return loop.time() - begun

    took = asyncio.run(with_writer(sink, body))
    assert 0.0015 <= took < 0.5
    assert len(sink.batches) == 1


def test_a_failed_commit_reaches_every_waiter() -> None:
    failure = StorageError("commit failed: disk on fire")
    sink = FakeSink(delay=0.001, fail=failure)

    async def body(writer: DecisionWriter) -> list[BaseException | None]:
        results = await asyncio.gather(
            *(writer.write(row(1, n)) for n in range(50)), return_exceptions=True
        )
        return list(results)

    results = asyncio.run(with_writer(sink, body))
    assert results == [failure] * 50


def test_a_refused_row_fails_only_its_own_writer() -> None:
    sink = FakeSink()
    sink.refuse = {3}

    async def body(writer: DecisionWriter) -> list[BaseException | None]:
        return list(
            await asyncio.gather(
                *(writer.write(row(1, n)) for n in range(6)), return_exceptions=True
            )
        )

    results = asyncio.run(with_writer(sink, body))
    assert [type(r).__name__ for r in results] == ["NoneType"] * 3 + ["Conflict"] + ["NoneType"] * 2


def test_stop_flushes_pending_rows_and_later_writes_are_refused() -> None:
    sink = FakeSink()

    async def scenario() -> None:
        writer = DecisionWriter(sink, max_delay=timedelta(seconds=30))
        await writer.start()
        pending = asyncio.ensure_future(writer.write(row(1, 0)))
        await asyncio.sleep(0.01)
        assert not pending.done()  # still inside its 30 s gathering window
        await writer.stop()
        assert pending.done() and pending.exception() is None
        with pytest.raises(StorageError, match="decision 1 of match 1: the decision writer is not"):
            await writer.write(row(1, 1))

    asyncio.run(scenario())
    assert len(sink.batches) == 1


# Against Postgres


def run(url: str, scenario: Callable[[Database], Awaitable[T]]) -> T:
    async def main() -> T:
        db = await Database.open(url, max_size=4)
        try:
            await db.migrate()
            return await scenario(db)
        finally:
            await db.close()

    return asyncio.run(main())


async def new_matches(db: Database, count: int) -> list[int]:
    bots = [
        await db.create_bot(
            f"gc-{secrets.token_hex(4)}", hashlib.sha256(secrets.token_bytes(8)).digest()
        )
        for _ in range(2)
    ]
    return [await db.create_match("toy", 1, {}, 2, n, {}, bots) for n in range(count)]


def test_many_concurrent_decisions_need_few_transactions(migrated_database_url: str) -> None:
    async def scenario(db: Database) -> tuple[int, int]:
        matches = await new_matches(db, 20)
        before = db.writer.batches
        await asyncio.gather(*(db.record_decision(row(m, n)) for m in matches for n in range(10)))
        stored = sum([len(await db.decisions(m)) for m in matches])
        return db.writer.batches - before, stored

    batches, stored = run(migrated_database_url, scenario)
    assert stored == 200
    assert batches <= 5


def test_a_bad_row_in_a_batch_fails_alone(migrated_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        (match_id,) = await new_matches(db, 1)
        await db.record_decision(row(match_id, 0))
        results = await asyncio.gather(
            db.record_decision(row(match_id, 0)),  # the same decision again: an idempotent retry
            db.record_decision(DecisionRow(match_id, 0, "play", {0: "other"})),  # a different one
            db.record_decision(row(10**12, 0)),  # no such match
            db.record_decision(row(match_id, 1)),
            return_exceptions=True,
        )
        assert results[0] is None and results[3] is None
        assert isinstance(results[1], Conflict)
        assert f"decision 0 of match {match_id}: a different decision 0 is already" in str(
            results[1]
        )
        assert isinstance(results[2], NotFound)
        assert "record decision 0 of match 1000000000000" in str(results[2])
        assert [d.number for d in await db.decisions(match_id)] == [0, 1]

    run(migrated_database_url, scenario)


def test_a_commit_that_fails_in_postgres_reaches_every_waiter(fresh_database_url: str) -> None:
    async def scenario(db: Database) -> None:
        matches = await new_matches(db, 5)
        # A deferred constraint trigger fails at COMMIT, after every row was accepted.
        with psycopg.connect(fresh_database_url, autocommit=True) as conn:
            conn.execute(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
                " $$BEGIN RAISE EXCEPTION 'commit refused by test trigger'; END$$"
            )
            conn.execute(
                "CREATE CONSTRAINT TRIGGER refuse AFTER INSERT ON decisions"
                " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW"
                " WHEN (NEW.label = 'doomed') EXECUTE FUNCTION refuse()"
            )
        rows = [DecisionRow(m, n, "play", {0: 1}) for m in matches for n in range(4)]
        rows.append(DecisionRow(matches[0], 4, "doomed", {0: 1}))
        results = await asyncio.gather(
            *(db.record_decision(r) for r in rows), return_exceptions=True
        )
        assert all(isinstance(r, StorageError) for r in results), results
        assert all("commit refused by test trigger" in str(r) for r in results)
        assert len({id(r) for r in results}) == 1
        assert sum([len(await db.decisions(m)) for m in matches]) == 0

    run(fresh_database_url, scenario)


def test_awkward_json_survives_the_copy_path(migrated_database_url: str) -> None:
    awkward: dict[int, Json] = {
        0: 'tab\there\nnewline back\\slash quote" é 🎲 \\N',
        1: {"nested": [1, 2.5, None, True, {"": ""}]},
    }

    async def scenario(db: Database) -> None:
        (match_id,) = await new_matches(db, 1)
        written = DecisionRow(
            match_id, 0, "bribe\tlabel", awkward, {0: timedelta(microseconds=1)}, {1: "said\n'no'"}
        )
        await asyncio.gather(db.record_decision(written), db.record_decision(row(match_id, 1)))
        (stored, _) = await db.decisions(match_id)
        assert (stored.label, stored.joint, stored.elapsed, stored.strikes) == (
            written.label,
            written.joint,
            written.elapsed,
            written.strikes,
        )

    run(migrated_database_url, scenario)


class HeldSink(FakeSink):
    """A sink whose commits stay open until released; it counts how many are open at once."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.open = 0
        self.most = 0

    async def write_decisions(self, rows: Sequence[DecisionRow]) -> Sequence[StorageError | None]:
        self.open += 1
        self.most = max(self.most, self.open)
        try:
            await self.release.wait()
            return await super().write_decisions(rows)
        finally:
            self.open -= 1


@pytest.mark.parametrize("in_flight", [1, 3])
def test_rows_arriving_during_a_commit_commit_beside_it_up_to_max_in_flight(in_flight: int) -> None:
    sink = HeldSink()

    async def body(writer: DecisionWriter) -> None:
        writes = []
        for number in range(4):
            writes.append(asyncio.ensure_future(writer.write(row(1, number))))
            while sink.open < min(number + 1, in_flight):  # until its commit has begun
                await asyncio.sleep(0.001)
        sink.release.set()
        await asyncio.gather(*writes)

    asyncio.run(with_writer(sink, body, max_in_flight=in_flight))
    assert sorted(r.number for batch in sink.batches for r in batch) == [0, 1, 2, 3]
    assert sink.most == in_flight
