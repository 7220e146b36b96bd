"""Shared fixtures: throwaway databases on a real Postgres."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql


@pytest.fixture
def fresh_database_url() -> Iterator[str]:
    """A new, empty database on the server ARENA_DATABASE_URL names, dropped afterwards."""
    server = os.environ["ARENA_DATABASE_URL"]
    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    base, _, _ = server.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
