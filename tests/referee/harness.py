"""A real referee on a loopback port over a real Postgres, and bots as real gRPC clients."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import grpc

from arena.referee.app import Referee, RefereeConfig
from arena.referee.clock import Clock
from arena.referee.limits import Limits
from arena.referee.server import RunningServer, create_server
from arena.sdk import Bot
from arena.storage import Database
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2

ADMIN = "test-admin-token"
ADMIN_METADATA = (("authorization", f"Bearer {ADMIN}"),)
FAST_CLOCK = Clock(
    per_decision=timedelta(seconds=2),
    bank=timedelta(0),
    grace=timedelta(milliseconds=50),
    max_strikes=3,
)


@contextlib.asynccontextmanager
async def running_referee(
    database_url: str,
    clock: Clock = FAST_CLOCK,
    reconnect_grace: timedelta = timedelta(seconds=2),
    spectator_delay: timedelta = timedelta(0),
    limits: Limits | None = None,
) -> AsyncIterator[RunningServer]:
    """A migrated database and a referee listening on a free loopback port."""
    db = await Database.open(database_url)
    await db.migrate()
    config = RefereeConfig(
        host="test-referee",
        admin_token=ADMIN,
        reconnect_grace=reconnect_grace,
        default_clock=clock,
        connect_timeout=timedelta(seconds=5),
        spectator_delay=spectator_delay,
        limits=limits or Limits(),
    )
    running = await create_server(Referee(db, config), "127.0.0.1:0")
    try:
        yield running
    finally:
        await running.stop(0.2)
        await db.close()


def stub(address: str) -> tuple[grpc.aio.Channel, arena_pb2_grpc.ArenaServiceStub]:
    """A channel and a public-API stub."""
    channel = grpc.aio.insecure_channel(address)
    return channel, arena_pb2_grpc.ArenaServiceStub(channel)


async def register(address: str, name: str) -> str:
    """Register a bot and return its token."""
    channel, api = stub(address)
    async with channel:
        reply = await api.RegisterBot(arena_pb2.RegisterBotRequest(name=name))
    return reply.token


async def create_match(
    address: str, game: str, bots: list[str], seed: int = 1, **options: Any
) -> int:
    """Create a match as admin and return its id."""
    channel, api = stub(address)
    request = arena_pb2.CreateMatchRequest(game=game, bots=bots, seed=seed)
    request.options.update(options)
    async with channel:
        match = await api.CreateMatch(request, metadata=ADMIN_METADATA)
    return match.match_id


async def wait_finished(address: str, match_id: int, timeout: float = 60.0) -> arena_pb2.Match:
    """Poll until the match has finished; fail after `timeout` seconds."""
    channel, api = stub(address)
    async with channel:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            match = await api.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
            if match.status == common_pb2.MATCH_STATUS_FINISHED:
                return match
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"match {match_id} still {match.status} after {timeout}s")
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def playing(
    bots: list[tuple[Bot, str]], address: str
) -> AsyncIterator[list[asyncio.Task[None]]]:
    """Run (bot, token) pairs as connected clients for the duration of the block."""
    tasks = [asyncio.create_task(bot.run_async(address, token)) for bot, token in bots]
    try:
        await _until_connected(address, len(bots))
        yield tasks
    finally:
        for bot, _ in bots:
            bot.stop()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _until_connected(address: str, count: int, timeout: float = 10.0) -> None:
    channel, api = stub(address)
    async with channel:
        for _ in range(int(timeout / 0.05)):
            listed = await api.ListBots(arena_pb2.ListBotsRequest())
            if len(listed.bots) >= count:
                return
            await asyncio.sleep(0.05)
    raise TimeoutError(f"fewer than {count} bots connected")
