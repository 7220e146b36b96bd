"""Shared fixtures: throwaway Postgres databases and Redis servers (configured or embedded)."""

from collections.abc import Iterator

import pytest

from tests.dbfixtures import (  # noqa: F401
    database_factory,
    fresh_database_url,
    isolated_redis_url,
    migrated_database_url,
    postgres_server_url,
    redis_server_url,
)
from tests.userdata import listing, new_paths, user_data_dirs


@pytest.fixture(scope="session", autouse=True)
def user_data_untouched() -> Iterator[None]:
    """Fail the run if any test left something in the user's own arena folders."""
    folders = user_data_dirs()
    before = listing(folders)
    yield
    appeared = new_paths(before, listing(folders))
    if appeared:
        pytest.fail("the test run wrote to the user's data directory: " + ", ".join(appeared))
