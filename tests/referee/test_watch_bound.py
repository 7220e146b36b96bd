"""A spectator that falls behind a running match is dropped, not queued for without bound."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import grpc
import pytest

from arena.ops import metrics
from arena.referee.limits import Limits
from arena.v1 import arena_pb2
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, playing, register, running_referee, stub

pytestmark = pytest.mark.integration


def test_a_watcher_that_falls_behind_is_dropped(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(
            fresh_database_url,
            spectator_delay=timedelta(seconds=60),
            limits=Limits(watch_queue_steps=3),
        ) as server:
            names = ["w0", "w1", "w2"]
            tokens = [await register(server.address, n) for n in names]
            # The match exists (waiting for its bots) before the spectator arrives.
            match_id = await create_match(server.address, "hart", names, seed=5)
            channel, api = stub(server.address)
            before = metrics.SLOW_WATCHERS._value.get()
            async with channel:
                # The 60 s spectator delay holds every step: the watcher falls behind.
                watch = api.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match_id), timeout=30)
                bots = [RandomBot(i) for i in range(3)]
                async with playing(list(zip(bots, tokens, strict=True)), server.address):
                    with pytest.raises(grpc.aio.AioRpcError) as info:
                        async for _ in watch:
                            raise AssertionError("no step is shown before the delay")
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "fell more than 3 steps behind" in (info.value.details() or "")
            assert metrics.SLOW_WATCHERS._value.get() == before + 1

    asyncio.run(scenario())
