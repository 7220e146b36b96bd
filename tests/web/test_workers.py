"""`arena web --workers N`: N processes on one port, their metrics summed; bad flags refused."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request

import pytest

from arena.ops.ports import free_port

pytestmark = pytest.mark.integration
ARENA = [sys.executable, "-m", "arena.cli.main"]


def get(url: str) -> tuple[int, str]:
    """Status and text of a GET."""
    with urllib.request.urlopen(url, timeout=10) as reply:
        return int(reply.status), reply.read().decode()


def wait_for(url: str, seconds: float = 180) -> None:
    """Until `url` answers."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            get(url)
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_two_workers_share_the_port_and_sum_their_metrics(migrated_database_url: str) -> None:
    port, metrics_port = free_port(), free_port()
    command = [*ARENA, "web", "--port", str(port), "--metrics-port", str(metrics_port)]
    env = {**os.environ, "ARENA_DATABASE_URL": migrated_database_url}
    server = subprocess.Popen(
        [*command, "--workers", "2"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(base + "/healthz")
        for _ in range(20):
            assert get(base + "/api/games")[0] == 200
        wait_for(f"http://127.0.0.1:{metrics_port}/metrics")
        text = get(f"http://127.0.0.1:{metrics_port}/metrics")[1]
        counted = re.search(
            r'arena_web_requests_total\{method="GET",route="/api/games",status="200"\} (\S+)', text
        )
        assert counted is not None, text[:2000]
        assert float(counted[1]) == 20.0, "every worker's requests, summed"
        children = subprocess.run(
            ["pgrep", "-P", str(server.pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        assert len(children) >= 2, "two worker processes"
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0].decode()
    assert "Traceback" not in output, output


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--workers", "0"], "--workers must be 1-64"),
        (["--pool", "0"], "--pool 1-100"),
        (["--fresh", "-1"], "--fresh must be 0 or more seconds"),
    ],
)
def test_bad_flags_are_one_line(flags: list[str], says: str) -> None:
    env = {**os.environ, "ARENA_DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none"}
    done = subprocess.run(
        [*ARENA, "web", *flags], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
