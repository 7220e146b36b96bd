"""A newcomer's `make test`: no ARENA_* variable set, and nothing left in their own folders.

The README promises that the suite runs on embedded servers when nothing is configured, and a
test run must never write to the user's data directory. CI sets the variables, so this test
runs a few of the suite's server fixtures in a child pytest with every ARENA_* variable unset
and the user's folders pointed at a temporary home, then looks at what was left there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.userdata import listing, new_paths

ROOT = Path(__file__).resolve().parent.parent

# One test for each server fixture: a throwaway database on the session's Postgres, the
# session's Redis, and a Redis of the test's own as a Celery broker.
FIXTURE_TESTS = [
    "tests/storage/test_db.py::test_bots_are_found_by_token_hash_and_name",
    "tests/referee/test_cluster_parts.py::test_the_registry_lists_live_referees_and_locates_bots",
    "tests/tournament/test_schedules.py::test_a_real_beat_creates_two_editions_among_the_connected_bots",
]


def test_the_guard_sees_a_file_written_into_a_watched_folder(tmp_path: Path) -> None:
    watched = tmp_path / "arena"
    before = listing([watched])
    (watched / "redis").mkdir(parents=True)
    (watched / "redis" / "redis.port").write_text("6379")
    assert new_paths(before, listing([watched])) == [
        str(watched),
        str(watched / "redis"),
        str(watched / "redis" / "redis.port"),
    ]
    assert new_paths(listing([watched]), listing([watched])) == []


@pytest.mark.integration
def test_the_server_fixtures_run_with_nothing_configured(tmp_path: Path) -> None:
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(xdg))
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *FIXTURE_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"{len(FIXTURE_TESTS)} passed" in run.stdout
    assert not (xdg / "arena").exists(), "the user's data directory was created"
    assert not (home / ".local/share/arena").exists(), "the user's data directory was created"
