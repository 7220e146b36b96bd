"""Postgres goes away under a playing referee: fast UNAVAILABLE, NOT_SERVING, quick recovery."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from tests.dbfixtures import migrate_database
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, playing, register, running_referee, wait_finished
from tests.storage.tcp_proxy import TcpProxy

pytestmark = pytest.mark.integration

OUTAGE = 8.0
"""Long enough for psycopg_pool's reconnection backoff (1, 2, 4, 8 s) to matter."""


async def _health(channel: grpc.aio.Channel) -> int:
    reply = await health_pb2_grpc.HealthStub(channel).Check(
        health_pb2.HealthCheckRequest(service=""), timeout=2
    )
    return int(reply.status)


async def _until(predicate: object, timeout: float) -> float:
    """Seconds until the async predicate holds; fails after `timeout`."""
    begun = time.monotonic()
    while not await predicate():  # type: ignore[operator]
        if time.monotonic() - begun > timeout:
            raise TimeoutError(f"not within {timeout}s")
        await asyncio.sleep(0.05)
    return time.monotonic() - begun


async def _timed_failure(call: object) -> tuple[grpc.StatusCode, float]:
    begun = time.monotonic()
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call  # type: ignore[misc]
    return caught.value.code(), time.monotonic() - begun


def _db_errors() -> float:
    return REGISTRY.get_sample_value("arena_db_errors_total", {"operation": "record_decision"}) or 0


def test_a_database_outage_fails_fast_reports_not_serving_and_recovers(
    fresh_database_url: str,
) -> None:
    migrate_database(fresh_database_url)
    names = ["o0", "o1", "o2"]

    async def scenario() -> None:
        proxy = TcpProxy(fresh_database_url)
        await proxy.start()
        try:
            async with running_referee(proxy.url) as server:
                tokens = [await register(server.address, n) for n in names]
                bots = [RandomBot(seed=i) for i in range(3)]
                async with playing(list(zip(bots, tokens, strict=True)), server.address):
                    match_id = await create_match(server.address, "hart", names, seed=6)
                    while sum(len(b.requests) for b in bots) < 10:
                        await asyncio.sleep(0.02)
                    errors = _db_errors()
                    await proxy.stop()
                    down_at = time.monotonic()
                    channel = grpc.aio.insecure_channel(server.address)
                    async with channel:

                        async def not_serving() -> bool:
                            return (
                                await _health(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
                            )

                        assert await _until(not_serving, 5) < 3
                        public = arena_pb2_grpc.ArenaServiceStub(channel)
                        code, took = await _timed_failure(
                            public.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
                        )
                        assert code == grpc.StatusCode.UNAVAILABLE and took < 1.5
                        code, took = await _timed_failure(
                            public.RegisterBot(arena_pb2.RegisterBotRequest(name="late"))
                        )
                        assert code == grpc.StatusCode.UNAVAILABLE and took < 1.5
                        hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=tokens[0]))
                        play = bot_pb2_grpc.BotServiceStub(channel).Play(iter([hello]))

                        async def first_reply() -> None:
                            async for _ in play:
                                pass

                        code, took = await _timed_failure(first_reply())
                        assert code == grpc.StatusCode.UNAVAILABLE and took < 1.5
                        await asyncio.sleep(OUTAGE - (time.monotonic() - down_at))
                        assert _db_errors() >= errors + 3, "failed writes are counted as they fail"
                        asked = sum(len(b.requests) for b in bots)
                        await proxy.start()

                        async def serving() -> bool:
                            return await _health(channel) == health_pb2.HealthCheckResponse.SERVING

                        async def playing_again() -> bool:
                            return sum(len(b.requests) for b in bots) > asked

                        assert await _until(serving, 10) < 2.5
                        assert await _until(playing_again, 10) < 3.0, (
                            "about 2 s, with room for a loaded machine"
                        )
                    match = await wait_finished(server.address, match_id)
                assert match.seats
        finally:
            await proxy.stop()

    asyncio.run(scenario())
