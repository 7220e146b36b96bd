"""A referee never shares its port: grpc's default SO_REUSEPORT would let a second server bind
a taken port, and the kernel would then hand each new connection to either of them."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from arena.referee.app import Referee, RefereeConfig
from arena.referee.server import create_server
from tests.referee.harness import ADMIN, running_referee

pytestmark = pytest.mark.integration


def test_a_second_referee_on_a_taken_port_is_refused(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as first:
            second = Referee(first.referee.db, RefereeConfig(host="second", admin_token=ADMIN))
            with pytest.raises(RuntimeError, match="Failed to bind"):
                await create_server(second, f"127.0.0.1:{first.port}")

    asyncio.run(scenario())


def test_grpc_alone_would_share_it() -> None:
    """The hazard itself, so that the test above keeps meaning something: two plain grpc.aio
    servers bind the same port."""

    async def scenario() -> None:
        first = grpc.aio.server()
        port = first.add_insecure_port("127.0.0.1:0")
        await first.start()
        try:
            assert grpc.aio.server().add_insecure_port(f"127.0.0.1:{port}") == port
        finally:
            await first.stop(0)

    asyncio.run(scenario())
