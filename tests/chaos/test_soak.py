"""A 90-second seeded chaos soak (bench/chaos.py) ends with every invariant holding.

The soak runs on servers of its own (its own Postgres cluster and Redis in a temporary folder),
whatever ARENA_DATABASE_URL and ARENA_REDIS_URL say, since it stops and starts them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SEED = 26


@pytest.mark.timeout(400)
def test_a_seeded_chaos_soak_violates_no_invariant() -> None:
    # Not pytest's tmp_path: under root Postgres runs as `nobody`, which cannot enter it.
    folder = tempfile.mkdtemp(prefix="arena-chaos-test-")
    os.chmod(folder, 0o755)
    try:
        done = _soak({**os.environ, "TMPDIR": folder})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    output = done.stdout + done.stderr
    assert "faults injected:" in output, output[-6000:]
    assert "invariant violations: 0" in output, output[-6000:]
    assert done.returncode == 0, output[-6000:]


def _soak(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "chaos.py"),
            *("--seconds", "90", "--seed", str(SEED), "--bots", "10"),
            *("--every", "5", "--settle", "60"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=380,
        check=False,
    )
