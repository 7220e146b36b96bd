"""A database that cannot be reached, or goes away, gives `Unavailable` saying which and why."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from datetime import timedelta

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from arena.storage import Database, DecisionRow, Unavailable
from arena.storage.probe import DatabaseProbe
from tests.dbfixtures import drop_database, migrate_database
from tests.storage.tcp_proxy import TcpProxy


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_opening_a_dead_server_is_unavailable_with_the_reason() -> None:
    port = closed_port()
    url = f"postgresql://arena:secret@127.0.0.1:{port}/arena"
    begun = time.monotonic()
    with pytest.raises(Unavailable) as caught:
        asyncio.run(Database.open(url, timeout=timedelta(seconds=1)))
    message = str(caught.value)
    assert time.monotonic() - begun < 10
    assert f"cannot connect to Postgres at arena@127.0.0.1:{port}/arena" in message
    assert "Connection refused" in message
    assert "secret" not in message


def test_a_database_that_goes_away_is_unavailable(
    postgres_server_url: str, fresh_database_url: str
) -> None:
    name = conninfo_to_dict(fresh_database_url)["dbname"]

    async def scenario() -> None:
        db = await Database.open(fresh_database_url, timeout=timedelta(seconds=1))
        try:
            await db.migrate()
            bot = await db.create_bot("ghost", bytes(32))
            match_id = await db.create_match("toy", 1, {}, 1, 1, {}, [bot])
            drop_database(postgres_server_url, fresh_database_url)
            with pytest.raises(Unavailable, match=f"list bots: .*{name}"):
                await db.list_bots()
            with pytest.raises(Unavailable, match="write 1 decisions"):
                await db.record_decision(DecisionRow(match_id, 0, "play", {0: 1}))
        finally:
            await db.close()

    asyncio.run(scenario())
    with psycopg.connect(postgres_server_url) as conn:
        gone = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    assert gone is None


def test_a_probed_database_fails_at_once_while_down_and_recovers_quickly(
    fresh_database_url: str,
) -> None:
    migrate_database(fresh_database_url)

    async def scenario() -> None:
        proxy = TcpProxy(fresh_database_url)
        await proxy.start()
        db = await Database.open(proxy.url)
        probe = DatabaseProbe(db, interval=timedelta(milliseconds=100))
        changes: list[bool] = []

        async def record(up: bool) -> None:
            changes.append(up)

        probe.listeners.append(record)
        probe.start()
        try:
            await db.list_bots()
            await proxy.stop()
            while not changes:
                await asyncio.sleep(0.02)
            begun = time.monotonic()
            with pytest.raises(Unavailable, match="list bots: the database is unreachable"):
                await db.list_bots()
            assert time.monotonic() - begun < 0.2
            # Long enough for the pool's own reconnection backoff to reach 4 s between attempts.
            await asyncio.sleep(6)
            await proxy.start()
            back = time.monotonic()
            while True:
                try:
                    await db.list_bots()
                    break
                except Unavailable:
                    await asyncio.sleep(0.02)
            assert time.monotonic() - back < 1.5
            assert changes == [False, True]
        finally:
            await probe.stop()
            await db.close()
            await proxy.stop()

    asyncio.run(scenario())


def test_one_slow_probe_does_not_mark_the_database_down(fresh_database_url: str) -> None:
    """A single failed probe (a busy machine, a lagging event loop) is not an outage; three are."""

    async def scenario() -> list[bool]:
        db = await Database.open(fresh_database_url)
        probe = DatabaseProbe(db, interval=timedelta(milliseconds=10))
        answers = iter([False, True, False, False, True, False, False, False])
        seen: list[bool] = []

        async def scripted() -> bool:
            try:
                return next(answers)
            except StopIteration:
                task = probe._task
                assert task is not None
                task.cancel()
                return False

        async def record(up: bool) -> None:
            seen.append(up)

        probe.check = scripted  # type: ignore[method-assign]
        probe.listeners.append(record)
        probe.start()
        try:
            while probe._task is not None and not probe._task.done():
                await asyncio.sleep(0.01)
        finally:
            await probe.stop()
            await db.close()
        return seen

    # Single and double failures pass unnoticed; the third in a row marks it down.
    assert asyncio.run(scenario()) == [False]


def test_after_a_failed_call_every_connection_is_checked_before_it_is_lent(
    fresh_database_url: str,
) -> None:
    """A connection given back a moment ago is lent without a check (one round trip fewer per
    decision batch), but a Postgres restart kills every pooled connection at once: the first
    call that meets a dead one fails, and from then on each is checked, so the next call works."""
    migrate_database(fresh_database_url)

    async def scenario() -> None:
        proxy = TcpProxy(fresh_database_url)
        await proxy.start()
        db = await Database.open(proxy.url, min_size=4, max_size=4)
        try:
            # Four connections in use at once, all given back within the last moment.
            await asyncio.gather(*(db.list_bots() for _ in range(4)))
            await proxy.stop()  # a restart faster than any probe: every connection is cut
            await proxy.start()
            # This call meets a dead connection: it fails, or the pool's check of an unchecked
            # one failed first and it was served by a new one.
            with contextlib.suppress(Unavailable):
                await db.list_bots()
            assert await db.list_bots() == []
        finally:
            await db.close()
            await proxy.stop()

    asyncio.run(scenario())
