"""The embedded Postgres and Redis start, answer, are shared by a second handle, and stop."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from kombu.connection import Connection

from arena.ops.services import (
    ENV_DATA_DIR,
    ENV_DATABASE_URL,
    ENV_REDIS_URL,
    EmbeddedRedis,
    EmbeddedServices,
    data_dir,
)
from arena.storage.embedded import EmbeddedError, EmbeddedPostgres

pytestmark = pytest.mark.integration


@pytest.fixture
def folder() -> Iterator[Path]:
    """A temporary folder that `nobody` can enter (the embedded Postgres runs as it under root)."""
    path = Path(tempfile.mkdtemp(prefix="arena-embedded-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_embedded_postgres_starts_answers_is_shared_and_stops(folder: Path) -> None:
    server = EmbeddedPostgres(folder / "var", fsync=False)
    url = server.start()
    try:
        assert "host=" in url and url.startswith("postgresql://postgres@/arena?")
        with psycopg.connect(url, autocommit=True) as conn:
            row = conn.execute("SELECT current_database(), current_setting('server_version')")
            assert row.fetchone() == ("arena", "18.6")
            conn.execute("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)")
            assert conn.execute("SHOW listen_addresses").fetchone() == ("",)
        if os.geteuid() == 0:  # Postgres refuses root: the cluster belongs to an ordinary user
            assert server.cluster.stat().st_uid != 0

        second = EmbeddedPostgres(folder / "var")
        assert second.start() == url
        second.stop()  # did not start it, so leaves it running
        assert server.is_running()
    finally:
        server.stop()
    assert not server.is_running()

    again = EmbeddedPostgres(folder / "var", fsync=False)
    with again, psycopg.connect(again.url) as conn:
        assert conn.execute("SELECT x FROM kept").fetchone() == (7,)
    assert not again.is_running()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs Postgres as another user")
def test_a_data_folder_the_server_user_cannot_enter_is_a_clear_error(folder: Path) -> None:
    locked = folder / "locked"
    locked.mkdir(mode=0o700)
    with pytest.raises(EmbeddedError, match=f"runs as 'nobody' .*cannot enter {locked}"):
        EmbeddedPostgres(locked / "var").start()


def test_embedded_redis_serves_celery_urls_and_stops(folder: Path) -> None:
    with EmbeddedRedis(folder) as redis:
        assert redis.url.startswith("redis://127.0.0.1:") and redis.url.endswith("/0")
        for url in (redis.url, f"redis+socket://{redis.socket_path}"):
            with Connection(url) as conn:  # type: ignore[no-untyped-call]
                queue = conn.SimpleQueue("arena-test")
                queue.put({"url": url})
                message = queue.get(timeout=5)
                assert message.payload == {"url": url}
                message.ack()
                queue.close()
        joined = EmbeddedRedis(folder)
        assert joined.start() == redis.url
        joined.stop()
        with Connection(redis.url) as conn:  # type: ignore[no-untyped-call]
            conn.ensure_connection(max_retries=1)
        port = int(redis.url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    assert not redis.socket_path.exists()


def test_configured_urls_start_nothing(folder: Path) -> None:
    env = {
        ENV_DATABASE_URL: "postgresql://db.example/arena",
        ENV_REDIS_URL: "redis://cache.example:6379/0",
        ENV_DATA_DIR: str(folder / "data"),
    }
    with EmbeddedServices(environ=env) as services:
        assert services.postgres is None and services.redis is None
        assert services.environ() == {k: env[k] for k in (ENV_DATABASE_URL, ENV_REDIS_URL)}
    assert not (folder / "data").exists()


def test_the_data_folder_is_per_user_and_not_the_current_directory(folder: Path) -> None:
    assert data_dir({"XDG_DATA_HOME": str(folder / "xdg")}) == folder.resolve() / "xdg/arena"
    assert data_dir({"ARENA_HOME": str(folder / "h")}) == folder.resolve() / "h"
    assert data_dir({ENV_DATA_DIR: str(folder / "x" / "..")}) == folder.resolve()
