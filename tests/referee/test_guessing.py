"""Guessing tokens from one address: bounded, and never at the expense of a right token.

A flood of wrong bot tokens or wrong admin tokens from an address is refused RESOURCE_EXHAUSTED
past its rate (each refusal after a delay), yet a right token from the same address still works.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import grpc
import pytest

from arena.referee.limits import Limits
from arena.v1 import arena_pb2
from tests.referee.harness import ADMIN_METADATA, register, running_referee, stub
from tests.referee.test_limits import counter, hello, quiet_forever, raw_play, status_of

pytestmark = pytest.mark.integration

FLOOD = 1000
DELAY = timedelta(milliseconds=2)
"""The delay of a refusal past the rate, short so that a thousand refusals take seconds."""


def test_a_thousand_wrong_hellos_do_not_lock_a_right_token_out(fresh_database_url: str) -> None:
    limits = Limits(failed_login_delay=DELAY)

    async def scenario() -> None:
        async with running_referee(fresh_database_url, limits=limits) as server:
            good = await register(server.address, "honest")
            channel, _ = stub(server.address)
            async with channel:
                limited = counter("arena_rate_limited_total", limit="login")
                codes: dict[grpc.StatusCode, int] = {}
                started = time.monotonic()
                for attempt in range(FLOOD):
                    call = raw_play(channel)(quiet_forever([hello(f"arena_guess{attempt:05d}")]))
                    code = (await asyncio.wait_for(status_of(call), 10))[0]
                    codes[code] = codes.get(code, 0) + 1
                # The bucket earns a try back every `every`: a slow (loaded) run earns more.
                rate = limits.failed_logins
                earned = int((time.monotonic() - started) / rate.every.total_seconds())
                burst = rate.burst + earned
                assert codes[grpc.StatusCode.UNAUTHENTICATED] <= burst + 10, codes
                assert codes[grpc.StatusCode.RESOURCE_EXHAUSTED] >= FLOOD - burst - 10, codes
                assert counter("arena_rate_limited_total", limit="login") >= limited + FLOOD - 20
                call = raw_play(
                    channel
                )()  # written to, not fed by a generator cancel() would close
                await call.write(hello(good))
                first = await asyncio.wait_for(call.read(), 10)
                assert first.WhichOneof("kind") == "welcome", first
                assert first.welcome.bot_name == "honest"
                call.cancel()

    asyncio.run(scenario())


def test_wrong_admin_tokens_are_rate_limited_and_a_right_one_still_works(
    fresh_database_url: str,
) -> None:
    limits = Limits(failed_login_delay=DELAY)

    async def scenario() -> None:
        async with running_referee(fresh_database_url, limits=limits) as server:
            for name in ("x", "y", "z"):
                await register(server.address, name)
            channel, api = stub(server.address)
            request = arena_pb2.CreateMatchRequest(game="crossing", bots=["x", "x"])
            async with channel:
                limited = counter("arena_rate_limited_total", limit="admin")
                codes: dict[grpc.StatusCode, int] = {}
                started = time.monotonic()
                for attempt in range(FLOOD):
                    wrong = (("authorization", f"Bearer wrong-{attempt}"),)
                    with pytest.raises(grpc.aio.AioRpcError) as caught:
                        await api.CreateMatch(request, metadata=wrong)
                    codes[caught.value.code()] = codes.get(caught.value.code(), 0) + 1
                rate = limits.failed_logins
                earned = int((time.monotonic() - started) / rate.every.total_seconds())
                burst = rate.burst + earned
                assert codes[grpc.StatusCode.PERMISSION_DENIED] <= burst + 10, codes
                assert codes[grpc.StatusCode.RESOURCE_EXHAUSTED] >= FLOOD - burst - 10, codes
                assert counter("arena_rate_limited_total", limit="admin") >= limited + FLOOD - 20
                # The right token from the same address, meanwhile over its limit, still works.
                reply = await api.CreateMatch(
                    arena_pb2.CreateMatchRequest(game="hart", bots=["x", "y", "z"], seed=2),
                    metadata=ADMIN_METADATA,
                )
                assert reply.match_id > 0

    asyncio.run(scenario())
