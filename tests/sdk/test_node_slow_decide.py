"""The Node SDK does not take the time a bot spends in `decide` for a silent referee: a decide
that blocks the event loop past the silence limit keeps its stream (the old SDK dropped it when
the check ran before the socket was read, and the bot was asked the same decision again). The
bot (node_slow_decide_bot.js) runs on the package's source against a real referee over gRPC."""

from __future__ import annotations

import asyncio
import os
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from arena.referee.clock import Clock
from tests.referee.bots import RandomBot
from tests.referee.harness import _until_connected, create_match, register, running_referee

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH"),
    pytest.mark.skipif(
        not (ROOT / "sdk" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir(),
        reason="sdk/node has no node_modules (make node-runtime)",
    ),
]

BOT = Path(__file__).with_name("node_slow_decide_bot.js")


def test_a_node_decide_longer_than_the_silence_limit_keeps_the_stream(
    fresh_database_url: str,
) -> None:
    patient = Clock(
        per_decision=timedelta(seconds=20),
        bank=timedelta(0),
        grace=timedelta(milliseconds=200),
        max_strikes=0,
    )
    quick = RandomBot(seed=4)

    async def scenario() -> tuple[list[str], str]:
        asked: list[str] = []
        async with running_referee(fresh_database_url, clock=patient) as server:
            tokens = [await register(server.address, n) for n in ("slow", "quick")]
            env = {k: v for k, v in os.environ.items() if k != "NODE_PATH"}
            node = await asyncio.create_subprocess_exec(
                *("node", str(BOT), server.address, tokens[0]),
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            task = asyncio.create_task(quick.run_async(server.address, tokens[1]))
            try:
                await _until_connected(server.address, 2)
                await create_match(server.address, "crossing", ["slow", "quick"], round_cap=2)
                assert node.stdout is not None
                while len(asked) < 3:
                    line = await asyncio.wait_for(node.stdout.readline(), 30)
                    assert line, "the node bot exited"
                    asked.append(line.decode().strip())
            finally:
                quick.stop()
                await task
                if node.returncode is None:
                    node.kill()
                _, err = await node.communicate()
        return asked, err.decode()

    asked, said = asyncio.run(scenario())
    assert said.count("connected to ") == 1, said
    assert "no answer to a heartbeat" not in said, said
    assert asked.count(asked[0]) == 1, asked
