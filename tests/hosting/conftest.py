"""Fixtures for hosted-bot tests: a sandboxed run of one program with small limits."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.hosting import cgroups
from arena.hosting.cgroups import ROOT
from arena.hosting.limits import MIB, Limits
from arena.hosting.process import Ending, HostedProcess
from arena.hosting.runtime import detect
from arena.hosting.sandbox import SandboxSpec, SandboxUnavailable, find_bwrap

CGROUP_BASE = "arena-hosted-test"
HOSTILE = Path(__file__).parent / "hostile"
REPO = Path(__file__).resolve().parents[2]
NODE_EXAMPLE = REPO / "examples" / "node-bot"
BUILT = ("node_modules", "proto", "gen", "types", "docs")
"""What npm and the package's build make inside sdk/node: never copied from a work tree."""
SMALL = Limits(
    memory_bytes=96 * MIB,
    processes=24,
    tmp_bytes=4 * MIB,
    output_bytes=4096,
    output_kill_bytes=4 * MIB,
)
"""Limits small enough that every hostile bot reaches them within a second or two."""

Run = Callable[..., tuple[Ending, str]]


@pytest.fixture(scope="session", autouse=True)
def remove_test_cgroups() -> Iterator[None]:
    """Remove the cgroup folder the tests' bots were placed under, with what runners the tests
    SIGKILLed left in it."""
    yield
    runners = {
        child.name
        for controller in ("memory", "pids", "cpu", "")
        if (ROOT / controller / CGROUP_BASE).is_dir()
        for child in (ROOT / controller / CGROUP_BASE).iterdir()
        if child.is_dir()
    }
    for runner in runners:
        cgroups.sweep(f"{CGROUP_BASE}/{runner}")
        cgroups.remove_base(f"{CGROUP_BASE}/{runner}")
    for controller in ("memory", "pids", "cpu", ""):
        with contextlib.suppress(OSError):
            (ROOT / controller / CGROUP_BASE).rmdir()


@pytest.fixture
def bwrap() -> str:
    """The bwrap binary; the test is skipped (saying why) on a machine without it."""
    try:
        return find_bwrap()
    except SandboxUnavailable as error:
        pytest.skip(str(error))


@pytest.fixture
def run_hostile(tmp_path: Path, bwrap: str) -> Run:
    """Run tests/hosting/hostile/NAME.py in a sandbox; return its Ending and kept output."""

    async def run(
        name: str, *args: str, limits: Limits = SMALL, stop_after: float | None = None
    ) -> tuple[Ending, str]:
        bot_dir = tmp_path / "bot"
        bot_dir.mkdir(exist_ok=True)
        shutil.copy(HOSTILE / f"{name}.py", bot_dir / "bot.py")
        socket_dir = tmp_path / "socket"
        socket_dir.mkdir(exist_ok=True)
        command = " ".join(["python3", "bot.py", *args])
        spec = SandboxSpec(bot_dir, command, socket_dir, "token-of-this-bot", limits)
        process = HostedProcess(spec, detect(), bwrap)
        await process.start(cgroup_base=CGROUP_BASE)
        if stop_after is not None:
            asyncio.get_running_loop().call_later(stop_after, process.stop)
        ending = await asyncio.wait_for(process.wait(), timeout=60)
        if process.cgroup is not None:
            assert not [folder for folder in process.cgroup.folders.values() if folder.exists()]
        return ending, process.output.text()

    def run_now(name: str, *args: str, **options: Any) -> tuple[Ending, str]:
        return asyncio.run(run(name, *args, **options))

    return run_now


@pytest.fixture(scope="session")
def node_sdk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The arena-bot package as a runner has it: a copy of sdk/node beside a copy of proto/ (as
    in a checkout), its dependencies installed by `npm ci --omit=dev` (from npm's cache when it
    holds them)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("hosted Node bots need node and npm on PATH (apt-get install nodejs npm)")
    root = tmp_path_factory.mktemp("node-sdk")
    folder = root / "sdk" / "node"
    shutil.copytree(REPO / "sdk" / "node", folder, ignore=shutil.ignore_patterns(*BUILT))
    shutil.copytree(REPO / "proto", root / "proto")
    argv = ["npm", "ci", "--omit=dev", "--prefer-offline", "--no-fund", "--no-audit"]
    done = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def node_bot_folder(folder: Path, sdk: Path) -> Path:
    """The Node example as its author has it after `npm install`: bot.js, package.json and
    node_modules/arena-bot, a link out of the folder to the SDK (left out by the upload)."""
    folder.mkdir(parents=True)
    for name in ("bot.js", "package.json"):
        shutil.copy(NODE_EXAMPLE / name, folder / name)
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "arena-bot").symlink_to(sdk, target_is_directory=True)
    return folder
