"""Rotating a bot's token on one referee closes its stream on another within a second."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import grpc
import pytest

from arena.v1 import account_pb2, account_pb2_grpc, bot_pb2, bot_pb2_grpc
from tests.referee.harness import ADMIN_METADATA, register
from tests.referee.test_scale_out import arena

pytestmark = pytest.mark.integration


async def _hello(token: str) -> AsyncIterator[bot_pb2.BotMessage]:
    yield bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token))
    await asyncio.Event().wait()


def test_rotation_closes_the_stream_on_another_referee(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with arena(fresh_database_url, referees=2) as fleet:
            first, second = fleet.addresses
            token = await register(first, "roamer")
            async with (
                grpc.aio.insecure_channel(second) as there,
                grpc.aio.insecure_channel(first) as here,
            ):
                plays = bot_pb2_grpc.BotServiceStub(there).Play(_hello(token))
                welcome = await plays.read()
                assert welcome.HasField("welcome")
                await asyncio.sleep(0.5)  # its presence reaches the registry
                accounts = account_pb2_grpc.AccountServiceStub(here)
                await accounts.RotateBotToken(
                    account_pb2.BotRef(bot="roamer"), metadata=ADMIN_METADATA
                )
                started = time.monotonic()
                with pytest.raises(grpc.aio.AioRpcError) as closed:
                    while await plays.read() is not grpc.aio.EOF:
                        pass
                assert time.monotonic() - started < 1.0
                assert closed.value.code() == grpc.StatusCode.UNAUTHENTICATED
                assert "rotated" in (closed.value.details() or "")

    asyncio.run(scenario())
