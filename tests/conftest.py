"""Shared fixtures: throwaway databases on a real Postgres (ARENA_DATABASE_URL or embedded)."""

from tests.dbfixtures import (  # noqa: F401
    database_factory,
    fresh_database_url,
    migrated_database_url,
    postgres_server_url,
)
