"""A hosted bot plays a real match: sandboxed, through its Unix socket, to a real referee."""

from __future__ import annotations

import asyncio
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from arena.hosting.archive import pack, unpack
from arena.hosting.limits import ExitCause
from arena.hosting.runtime import detect
from arena.hosting.sandbox import SandboxSpec
from arena.hosting.session import Session
from arena.v1 import common_pb2
from tests.hosting.conftest import CGROUP_BASE, HOSTILE, SMALL, node_bot_folder
from tests.referee.bots import RandomBot
from tests.referee.harness import (
    _until_connected,
    create_match,
    playing,
    register,
    running_referee,
    wait_finished,
)

pytestmark = pytest.mark.integration
STARTUP = timedelta(seconds=60)
"""How long a sandboxed bot may take to connect: it imports grpc under a CPU quota of half a
core, on a machine other tests load."""
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python-bot" / "my_bot.py"


def _session(tmp_path: Path, program: Path, token: str, bwrap: str, referee: str) -> Session:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    shutil.copy(program, bot_dir / "bot.py")
    socket_dir = tmp_path / "socket"
    socket_dir.mkdir()
    spec = SandboxSpec(bot_dir, "python3 bot.py", socket_dir, token, SMALL)
    return Session(spec, detect(), bwrap, referee)


def test_a_hosted_python_bot_plays_a_match_without_strikes(
    fresh_database_url: str, tmp_path: Path, bwrap: str
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["hosted", "r1", "r2", "r3"]
            tokens = [await register(server.address, name) for name in names]
            session = _session(tmp_path, EXAMPLE, tokens[0], bwrap, server.address)
            running = asyncio.create_task(session.run(CGROUP_BASE))
            bots = [RandomBot(seed=i) for i in range(3)]
            try:
                async with playing(list(zip(bots, tokens[1:], strict=True)), server.address):
                    await _until_connected(server.address, 4, timeout=STARTUP)
                    match_id = await create_match(server.address, "hart", names, seed=7)
                    match = await wait_finished(server.address, match_id)
            finally:
                session.stop()
                ending = await running
            assert match.status == common_pb2.MATCH_STATUS_FINISHED
            hosted = next(seat for seat in match.seats if seat.bot == "hosted")
            assert hosted.strikes == 0 and not hosted.forfeited, session.process.output.text()
            assert ending.cause is ExitCause.STOPPED

    asyncio.run(scenario())


def test_an_uploaded_node_example_plays_a_match_on_the_runners_sdk(
    fresh_database_url: str, tmp_path: Path, bwrap: str, node_sdk: Path
) -> None:
    """The Node example, packed as `arena bot upload` packs it (its link to the SDK left out),
    runs in the sandbox on the runner's read-only arena-bot package and plays without strikes."""
    packed = pack(node_bot_folder(tmp_path / "upload", node_sdk))
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    unpack(packed.content, bot_dir)
    assert sorted(p.name for p in bot_dir.iterdir()) == ["bot.js", "node_modules", "package.json"]
    assert not list((bot_dir / "node_modules").iterdir())
    socket_dir = tmp_path / "socket"
    socket_dir.mkdir()

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["node", "r1", "r2", "r3"]
            tokens = [await register(server.address, name) for name in names]
            spec = SandboxSpec(bot_dir, "node bot.js --random", socket_dir, tokens[0])
            session = Session(spec, detect(node_sdk), bwrap, server.address)
            running = asyncio.create_task(session.run(CGROUP_BASE))
            bots = [RandomBot(seed=i) for i in range(3)]
            try:
                async with playing(list(zip(bots, tokens[1:], strict=True)), server.address):
                    await _until_connected(server.address, 4, timeout=STARTUP)
                    match_id = await create_match(server.address, "hart", names, seed=7)
                    match = await wait_finished(server.address, match_id)
                    # The match is stored as finished before its end reaches the bot: let the
                    # bot print it before it is stopped (a loaded CI machine lost the line).
                    ended = f"match {match_id} ended"
                    for _ in range(100):
                        if ended in session.process.output.text():
                            break
                        await asyncio.sleep(0.1)
            finally:
                session.stop()
                ending = await running
            output = session.process.output.text()
            assert match.status == common_pb2.MATCH_STATUS_FINISHED
            node = next(seat for seat in match.seats if seat.bot == "node")
            assert node.strikes == 0 and not node.forfeited, output
            assert f"match {match_id} ended" in output, output
            assert ending.cause is ExitCause.STOPPED

    asyncio.run(scenario())


def test_a_bot_that_sleeps_through_hello_forfeits_and_the_runner_stops_it(
    fresh_database_url: str, tmp_path: Path, bwrap: str
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["sleeper", "r1", "r2", "r3"]
            tokens = [await register(server.address, name) for name in names]
            session = _session(tmp_path, HOSTILE / "busy.py", tokens[0], bwrap, server.address)
            running = asyncio.create_task(session.run(CGROUP_BASE))
            bots = [RandomBot(seed=i) for i in range(3)]
            try:
                async with playing(list(zip(bots, tokens[1:], strict=True)), server.address):
                    match_id = await create_match(server.address, "hart", names, seed=7)
                    match = await wait_finished(server.address, match_id)
            finally:
                session.stop()
                ending = await running
            sleeper = next(seat for seat in match.seats if seat.bot == "sleeper")
            assert sleeper.forfeited
            assert ending.cause is ExitCause.STOPPED

    asyncio.run(scenario())
