"""What a runner leaves behind: a SIGKILLed runner's cgroups are removed when it starts again,
unpacked archives go when no bot of the runner needs them, and its metrics say what it ran."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import psycopg
import pytest

from arena.hosting import cgroups
from arena.hosting.cgroups import ROOT
from arena.hosting.limits import Limits
from arena.hosting.sandbox import SandboxUnavailable, find_bwrap
from arena.ops.ports import free_port
from tests.hosting.conftest import CGROUP_BASE
from tests.hosting.test_runner import EXAMPLE, GRACE, _connected, _hosted_bot, _runner, _until
from tests.referee.harness import register, running_referee

pytestmark = pytest.mark.integration
NAME = "run-clean"


def _bot_cgroups(runner: str) -> set[Path]:
    """The bot cgroup folders under `runner`'s own folder (memory controller, or v2)."""
    unified = (ROOT / "cgroup.controllers").exists()
    top = ROOT / CGROUP_BASE / runner if unified else ROOT / "memory" / CGROUP_BASE / runner
    return {child for child in top.iterdir() if child.is_dir()} if top.is_dir() else set()


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text: str = answer.read().decode()
    return text


def _sample(text: str, name: str) -> float:
    """The value of the sample line starting with `name` (labels included)."""
    lines = [line for line in text.splitlines() if line.startswith(name + " ")]
    assert lines, f"no sample {name} in the runner's metrics"
    return float(lines[0].rsplit(" ", 1)[1])


def _always_on(url: str, name: str, on: bool) -> None:
    with psycopg.connect(url) as conn:
        conn.execute("UPDATE bots SET always_on = %s WHERE name = %s", [on, name])


def test_sweep_removes_a_left_cgroup_and_kills_what_runs_in_it() -> None:
    base = f"{CGROUP_BASE}/sweeper"
    left = cgroups.create("bot-left", Limits(), base=base)
    if left is None:
        pytest.skip("cgroups cannot be written on this machine")

    def join() -> None:  # as the launcher does: write the pid (0: this process) to each folder
        for path in left.procs_files:
            path.write_text("0")

    sleeper = subprocess.Popen(["sleep", "60"], preexec_fn=join)
    try:
        assert not left.is_empty()
        assert cgroups.sweep(base) == 1
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert not [folder for folder in left.folders.values() if folder.exists()]
        assert cgroups.sweep(base) == 0, "nothing is left to sweep"
    finally:
        sleeper.kill()
        sleeper.wait()
        cgroups.remove_base(base)


def test_a_sigkilled_runners_leftovers_go_at_its_next_start(
    fresh_database_url: str, tmp_path: Path
) -> None:
    try:
        find_bwrap()
    except SandboxUnavailable as error:
        pytest.skip(str(error))
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "bot.py").write_text(EXAMPLE.read_text())
    archives = tmp_path / NAME / "archives"

    async def scenario() -> None:
        async with running_referee(fresh_database_url, reconnect_grace=GRACE) as server:
            await register(server.address, "tidy")
            await _hosted_bot(fresh_database_url, "tidy", folder)

            async def connected() -> bool:
                return "tidy" in await _connected(server.address)

            port = free_port()
            first = _runner(NAME, server.address, fresh_database_url, tmp_path, port)
            try:
                await _until(connected, 60)
                text = _metrics(port)
                assert _sample(text, f'arena_runner_bots{{runner="{NAME}"}}') == 1
                assert _sample(text, f'arena_runner_bot_starts_total{{runner="{NAME}"}}') >= 1
                count = f'arena_runner_upload_to_connected_seconds_count{{runner="{NAME}"}}'
                assert _sample(text, count) == 1
                left = _bot_cgroups(NAME)
                assert len(left) == 1 and len(list(archives.iterdir())) == 1
                stale = archives / ("ab" * 32)
                stale.mkdir()  # an archive no bot of the runner uses
                first.send_signal(signal.SIGKILL)
                first.wait(timeout=10)
                await asyncio.sleep(1)
                assert _bot_cgroups(NAME) == left, "SIGKILL leaves the bot's cgroup behind"
            finally:
                if first.poll() is None:
                    first.kill()
                first.communicate(timeout=10)  # reaps it and closes its stderr pipe
            second = _runner(NAME, server.address, fresh_database_url, tmp_path)
            try:

                async def swept() -> bool:
                    now = _bot_cgroups(NAME)
                    return not now & left and not stale.exists() and await connected()

                await _until(swept, 30)
                assert len(_bot_cgroups(NAME)) == 1, "the bot runs again, in a new cgroup"
                _always_on(fresh_database_url, "tidy", False)

                async def tidied() -> bool:
                    return not list(archives.iterdir()) and not _bot_cgroups(NAME)

                took = await _until(tidied, 15)
                assert took < 15, "a bot no longer needed leaves no archive nor cgroup"
            finally:
                second.terminate()
                _, errors = second.communicate(timeout=30)
            assert second.returncode == 0, errors
            assert not _bot_cgroups(NAME) and not (ROOT / "memory" / CGROUP_BASE / NAME).exists()

    started = time.monotonic()
    asyncio.run(scenario())
    assert time.monotonic() - started < 120
