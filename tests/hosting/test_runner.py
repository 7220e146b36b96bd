"""Runners on a real referee and Postgres: a needed hosted bot runs, and after SIGKILL of its
runner it runs again on the other runner within 15 s."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest

from arena.cli.main import main
from arena.hosting.archive import pack
from arena.storage import Database
from arena.storage.hosted import Hosted
from arena.storage.runners import Runners
from arena.v1 import arena_pb2
from tests.hosting.conftest import CGROUP_BASE
from tests.referee.harness import register, running_referee, stub

pytestmark = pytest.mark.integration
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python-bot" / "my_bot.py"
FAILOVER = 15.0
"""The issue's bound: a dead runner's bots run again elsewhere within this many seconds."""
GRACE = timedelta(seconds=1)


async def _connected(address: str) -> set[str]:
    channel, api = stub(address)
    async with channel:
        listed = await api.ListBots(arena_pb2.ListBotsRequest())
    return {bot.name for bot in listed.bots}


async def _hosted_bot(url: str, name: str, folder: Path) -> None:
    """Make `name`'s playing version a hosted one of `folder`, always on."""
    packed = pack(folder)
    db = await Database.open(url)
    try:
        async with db.pool.connection("find bot") as conn:
            row = await (
                await conn.execute("SELECT id FROM bots WHERE name = %s", [name])
            ).fetchone()
        assert row is not None
        bot_id = int(row[0])
        hosted = Hosted(db.pool)
        await hosted.add_part(bot_id, packed.sha256, 0, packed.content, len(packed.content))
        await hosted.create_version(bot_id, "h1", "", packed.sha256, "python3 bot.py", len)
        await Runners(db.pool).set_always_on(bot_id, True)
    finally:
        await db.close()


def _runner(
    name: str, address: str, url: str, tmp_path: Path, metrics_port: int = -1
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "ARENA_DATABASE_URL": url,
        "ARENA_HOME": str(tmp_path / "home"),
    }
    argv = [sys.executable, "-m", "arena.cli.main", "runner", "--name", name]
    argv += ["--address", address, "--workdir", str(tmp_path / name)]
    argv += ["--metrics-port", str(metrics_port), "--cgroup-base", CGROUP_BASE]
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _holder(url: str) -> str | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT runner FROM hosted_leases").fetchone()
    return None if row is None else str(row[0])


async def _until(check: Callable[[], Awaitable[bool]], timeout: float) -> float:
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if await check():
            return time.monotonic() - start
        await asyncio.sleep(0.1)
    raise TimeoutError(f"not within {timeout} s")


def test_a_killed_runners_bot_runs_again_on_another_runner(
    fresh_database_url: str, tmp_path: Path
) -> None:
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "bot.py").write_text(EXAMPLE.read_text())

    async def scenario() -> None:
        async with running_referee(fresh_database_url, reconnect_grace=GRACE) as server:
            await register(server.address, "hosted")
            await _hosted_bot(fresh_database_url, "hosted", folder)
            runners = {
                name: _runner(name, server.address, fresh_database_url, tmp_path)
                for name in ("run-a", "run-b")
            }
            try:

                async def connected() -> bool:
                    return "hosted" in await _connected(server.address)

                await _until(connected, 60)
                first = _holder(fresh_database_url)
                assert first in runners
                runners[first].send_signal(signal.SIGKILL)
                runners[first].wait(timeout=10)
                killed_at = time.monotonic()

                async def moved() -> bool:
                    return _holder(fresh_database_url) not in (None, first) and await connected()

                await _until(moved, FAILOVER + 5)
                assert time.monotonic() - killed_at <= FAILOVER
            finally:
                for process in runners.values():
                    if process.poll() is None:
                        process.terminate()
                errors = [process.communicate(timeout=20)[1] for process in runners.values()]
            assert all(p.returncode in (0, -signal.SIGKILL) for p in runners.values()), errors

    asyncio.run(scenario())


def test_a_node_sdk_that_is_not_the_package_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    argv = [
        "runner",
        "--address",
        "127.0.0.1:1",
        "--node-sdk",
        str(tmp_path),
        "--metrics-port",
        "-1",
    ]
    assert main([*argv, "--workdir", str(tmp_path / "work")]) != 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "is not the arena-bot package" in err[0], err
    assert not (tmp_path / "work").exists()
