"""`arena referees` lists the live referees."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from google.protobuf.timestamp_pb2 import Timestamp

from arena.cli.referees import table
from arena.v1 import arena_pb2
from tests.referee.harness import running_referee


def test_the_table_names_each_referee_its_load_and_state() -> None:
    seen = Timestamp(seconds=1000)
    rows = [
        arena_pb2.Referee(
            name="ref-0", address="a:1", hosted_matches=3, connected_bots=5, seen_at=seen
        ),
        arena_pb2.Referee(name="ref-1", address="b:1", draining=True, seen_at=seen),
    ]
    lines = table(rows, now=1002.0).splitlines()
    assert lines[0].split() == ["referee", "address", "matches", "bots", "state"]
    assert lines[1].split() == ["ref-0", "a:1", "3", "5", "serving", "(seen", "2s", "ago)"]
    assert lines[2].split()[:5] == ["ref-1", "b:1", "0", "0", "draining"]
    assert table([], 0.0).splitlines()[1] == "(none live)"


def test_the_command_lists_a_lone_referee(fresh_database_url: str) -> None:
    async def scenario() -> str:
        async with running_referee(fresh_database_url) as server:
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "arena.cli.main", "referees", "--address", server.address],
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ},
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

    out = asyncio.run(scenario()).splitlines()
    assert len(out) == 2, out
    assert out[1].split()[0] == "test-referee" and "serving" in out[1]
