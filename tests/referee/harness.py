"""A real referee on a loopback port over a real Postgres, and bots as real gRPC clients."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

import grpc

from arena.ops.tls import ServerTls
from arena.referee.app import Referee, RefereeConfig
from arena.referee.clock import Clock
from arena.referee.limits import Limits
from arena.referee.server import RunningServer, create_server
from arena.sdk import Bot
from arena.sdk.tls import PLAINTEXT, ClientTls
from arena.storage import Database
from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, common_pb2

T = TypeVar("T")

ADMIN = "test-admin-token"
RPC_DEADLINE = 30.0
"""Seconds a helper's unary call may take: a referee that never answers fails the test."""
POLL = timedelta(milliseconds=50)
"""How often a helper asks the referee again."""
CHECK = timedelta(milliseconds=20)
"""How often `until` looks again."""
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
    tls: ServerTls | None = None,
) -> AsyncIterator[RunningServer]:
    """A migrated database and a referee listening on a free loopback port (over TLS when
    `tls` is given)."""
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
    running = await create_server(Referee(db, config), "127.0.0.1:0", tls)
    try:
        yield running
    finally:
        await running.stop(timedelta(milliseconds=200))
        await db.close()


def stub(
    address: str, tls: ClientTls = PLAINTEXT
) -> tuple[grpc.aio.Channel, arena_pb2_grpc.ArenaServiceStub]:
    """A channel and a public-API stub."""
    channel = tls.aio_channel(address)
    return channel, arena_pb2_grpc.ArenaServiceStub(channel)


async def register(address: str, name: str, tls: ClientTls = PLAINTEXT) -> str:
    """Register a bot and return its token."""
    channel, api = stub(address, tls)
    async with channel:
        reply = await api.RegisterBot(arena_pb2.RegisterBotRequest(name=name), timeout=RPC_DEADLINE)
    return reply.token


async def create_match(
    address: str,
    game: str,
    bots: list[str],
    seed: int = 1,
    tls: ClientTls = PLAINTEXT,
    **options: Any,
) -> int:
    """Create a match as admin and return its id."""
    channel, api = stub(address, tls)
    request = arena_pb2.CreateMatchRequest(game=game, bots=bots, seed=seed)
    request.options.update(options)
    async with channel:
        match = await api.CreateMatch(request, metadata=ADMIN_METADATA, timeout=RPC_DEADLINE)
    return match.match_id


async def wait_finished(
    address: str,
    match_id: int,
    timeout: timedelta = timedelta(minutes=1),
    tls: ClientTls = PLAINTEXT,
) -> arena_pb2.Match:
    """Poll until the match has finished; fail after `timeout`."""
    channel, api = stub(address, tls)
    async with channel:
        deadline = asyncio.get_running_loop().time() + timeout.total_seconds()
        while True:
            match = await api.GetMatch(
                arena_pb2.GetMatchRequest(match_id=match_id), timeout=RPC_DEADLINE
            )
            if match.status == common_pb2.MATCH_STATUS_FINISHED:
                return match
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"match {match_id} still {match.status} after {timeout}")
            await asyncio.sleep(0.05)


async def ended(
    address: str, match_id: int, timeout: timedelta = timedelta(seconds=90)
) -> arena_pb2.Match:
    """Poll until the match has finished or been aborted; fail after `timeout`."""
    ends = (common_pb2.MATCH_STATUS_FINISHED, common_pb2.MATCH_STATUS_ABORTED)
    channel, api = stub(address)
    async with channel:
        for _ in range(int(timeout / POLL)):
            match = await api.GetMatch(
                arena_pb2.GetMatchRequest(match_id=match_id), timeout=RPC_DEADLINE
            )
            if match.status in ends:
                return match
            await asyncio.sleep(POLL.total_seconds())
    raise TimeoutError(f"match {match_id} did not end: {match}")


async def within(work: Awaitable[T], limit: timedelta, what: str) -> T:
    """`work`'s result, or an AssertionError after `limit` that shows where every task of the
    loop was waiting. A hang then fails its own test with its cause; left to pytest-timeout it
    would abandon the event loop, and grpc.aio's poller thread would break the next tests of
    the same worker (a CI run once lost three more tests that way)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=limit.total_seconds())
    if task in done:
        return task.result()
    stacks = io.StringIO()
    for other in asyncio.all_tasks():
        if other is not asyncio.current_task():
            try:
                other.print_stack(limit=15, file=stacks)
            except Exception as exc:  # grpc.aio's Cython frames have no line number
                print(f"{other!r}: its stack cannot be printed ({exc!r})", file=stacks)
    task.cancel()
    await asyncio.wait({task}, timeout=10)
    raise AssertionError(f"{what}: not done after {limit}; the tasks:\n{stacks.getvalue()}")


async def until(check: Callable[[], bool], timeout: timedelta = timedelta(seconds=30)) -> None:
    """Wait until `check()` holds (e.g. a bot saw MatchEnd, which follows the stored result)."""
    for _ in range(int(timeout / CHECK)):
        if check():
            return
        await asyncio.sleep(CHECK.total_seconds())
    raise TimeoutError("condition not met")


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


async def _until_connected(
    address: str, count: int, timeout: timedelta = timedelta(seconds=10)
) -> None:
    channel, api = stub(address)
    async with channel:
        for _ in range(int(timeout / POLL)):
            listed = await api.ListBots(arena_pb2.ListBotsRequest())
            if len(listed.bots) >= count:
                return
            await asyncio.sleep(0.05)
    raise TimeoutError(f"fewer than {count} bots connected")


async def first_problems(call: Any, count: int) -> list[bot_pb2.Problem]:
    """The first `count` Problems a Play call sends (other messages skipped), then cancel it."""
    problems = []
    async for message in call:
        if message.WhichOneof("kind") == "problem":
            problems.append(message.problem)
        if len(problems) == count:
            call.cancel()
            break
    return problems
