"""What a bot author sees: two processes on one token stop flapping, and the terminal report shows
match starts and ends, every Problem with its reason, and a summary.
"""

from __future__ import annotations

import asyncio
import io
from datetime import timedelta

import pytest

from arena.cli.bot_report import BotReport
from arena.sdk import Bot, BotReplaced
from arena.v1 import arena_pb2
from tests.referee.bots import RandomBot, ScriptedAnswerBot, json_action
from tests.referee.harness import create_match, register, running_referee, stub, wait_finished

pytestmark = pytest.mark.integration


async def _connected_bots(address: str) -> list[arena_pb2.ConnectedBot]:
    channel, api = stub(address)
    async with channel:
        return list((await api.ListBots(arena_pb2.ListBotsRequest())).bots)


async def _until(condition: object, timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():  # type: ignore[operator]
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.05)


def test_a_second_process_on_the_same_token_replaces_the_first_which_stops(
    fresh_database_url: str,
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            token = await register(server.address, "twin")
            first, second = RandomBot(1), RandomBot(2)
            first_task = asyncio.create_task(first.run_async(server.address, token))

            async def first_connected() -> bool:
                return first.bot_name == "twin"

            await _until(first_connected)
            second_task = asyncio.create_task(second.run_async(server.address, token))
            # The first is told it was replaced and stops for good instead of reconnecting.
            with pytest.raises(BotReplaced, match="another stream opened with this bot's token"):
                await asyncio.wait_for(first_task, 10)
            bots = await _connected_bots(server.address)
            assert [b.name for b in bots] == ["twin"]
            connected_at = bots[0].connected_at.seconds
            await asyncio.sleep(1.5)  # no flapping: the same stream is still the open one
            bots = await _connected_bots(server.address)
            assert [(b.name, b.connected_at.seconds) for b in bots] == [("twin", connected_at)]
            assert not second_task.done()
            second.stop()
            await second_task

    asyncio.run(scenario())


def test_the_terminal_report_shows_matches_problems_and_a_summary(
    fresh_database_url: str,
) -> None:
    out = io.StringIO()

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["liar", "b1", "b2"]
            tokens = [await register(server.address, n) for n in names]
            liar = ScriptedAnswerBot([json_action("{not json")])
            liar.report = BotReport(out, every=timedelta(0))
            bots: list[Bot] = [liar, RandomBot(1), RandomBot(2)]
            tasks = [
                asyncio.create_task(b.run_async(server.address, t))
                for b, t in zip(bots, tokens, strict=True)
            ]

            async def all_connected() -> bool:
                return len(await _connected_bots(server.address)) == 3

            await _until(all_connected)
            match_id = await create_match(server.address, "hart", names, seed=2)
            await wait_finished(server.address, match_id)

            async def reported_end() -> bool:
                return f"match {match_id} ended" in out.getvalue()

            await _until(reported_end)
            for b in bots:
                b.stop()
            await asyncio.gather(*tasks)

    asyncio.run(scenario())
    text = out.getvalue()
    assert "connected to" in text and "as liar" in text
    assert "started: hart, seat" in text and "against b1, b2" in text
    assert "PROBLEM match" in text and "invalid action (strike 1/3)" in text
    assert "rank " in text and " of 3, score " in text
    assert "summary: 1 finished (0 running)" in text
    assert "think time mean" in text
