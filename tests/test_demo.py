"""`arena demo` does the whole job on embedded services and leaves no process behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _descendants_alive(marker: str) -> list[str]:
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ:
            found.append(command)
    return found


def test_demo_plays_a_swiss_and_shuts_everything_down() -> None:
    marker = f"ARENA_DEMO_TEST_MARKER={os.getpid()}"
    env = {
        k: v for k, v in os.environ.items() if k not in ("ARENA_DATABASE_URL", "ARENA_REDIS_URL")
    }
    env["ARENA_DEMO_TEST_MARKER"] = str(os.getpid())
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli.main",
            "demo",
            "--bots",
            "8",
            "--rounds",
            "2",
            "--start-in",
            "0.5",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    assert "8 bot processes connected over gRPC (4 heuristic, 4 random)" in out
    assert "round 2/2, tables 2/2  finished" in out
    assert "Elo leaderboard: hart" in out
    assert "http://" not in out, "the pages stop with the demo: no link to them"
    assert "run `arena demo --keep`: it keeps the pages up" in out
    standings = [line for line in out.splitlines() if line.strip()[:2].strip().isdigit()]
    assert len(standings) >= 16, out  # 8 standings lines and 8 leaderboard lines
    assert _descendants_alive(marker) == [], "the demo left processes running"
