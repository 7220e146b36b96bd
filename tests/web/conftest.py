"""Fixtures of the web tests: throwaway Postgres databases."""

from tests.dbfixtures import (  # noqa: F401
    database_factory,
    fresh_database_url,
    migrated_database_url,
    postgres_server_url,
)
