"""A database that cannot be reached, or goes away, gives `Unavailable` saying which and why."""

from __future__ import annotations

import asyncio
import socket
import time
from datetime import timedelta

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from arena.storage import Database, DecisionRow, Unavailable
from tests.dbfixtures import drop_database


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
