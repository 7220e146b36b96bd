"""A bot given several referees fails over: when the one it plays through stops, it is back on
another within a couple of seconds (well inside the reconnect grace) and plays on there. Two
real referees on loopback ports over one real Postgres; the bot is the SDK over real gRPC."""

from __future__ import annotations

import asyncio
import contextlib
import io
import signal
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest

from arena.cli.bot_report import BotReport
from arena.ops.ports import free_port
from arena.referee.app import Referee, RefereeConfig
from arena.referee.limits import Limits
from arena.referee.server import RunningServer, create_server
from arena.sdk import Bot
from arena.sdk.client import FAILOVER_WELCOME_TIMEOUT
from arena.storage import Database
from arena.v1 import arena_pb2
from tests.referee.bots import RandomBot
from tests.referee.fleet import until_serving
from tests.referee.harness import (
    ADMIN,
    FAST_CLOCK,
    create_match,
    playing,
    register,
    stub,
    wait_finished,
)
from tests.referee.test_restart import _serve

pytestmark = pytest.mark.integration

BACK_WITHIN = timedelta(seconds=2)
"""How soon after its referee stops the bot must be connected to another."""


@contextlib.asynccontextmanager
async def referee_on(database_url: str, name: str) -> AsyncIterator[RunningServer]:
    """One referee of several sharing the database (the test may stop it early)."""
    db = await Database.open(database_url)
    await db.migrate()
    config = RefereeConfig(
        host=name,
        admin_token=ADMIN,
        reconnect_grace=timedelta(seconds=10),
        default_clock=FAST_CLOCK,
        connect_timeout=timedelta(seconds=5),
        spectator_delay=timedelta(0),
        limits=Limits(),
    )
    running = await create_server(Referee(db, config), "127.0.0.1:0")
    try:
        yield running
    finally:
        await running.stop(timedelta(milliseconds=200))  # a second stop is harmless
        await db.close()


async def connected_names(address: str) -> list[str]:
    """The bots connected to the referee at `address` (its own streams)."""
    channel, api = stub(address)
    async with channel:
        return [b.name for b in (await api.ListBots(arena_pb2.ListBotsRequest())).bots]


async def until_connected(address: str, name: str, timeout: timedelta) -> float:
    """Seconds until `name` is connected to the referee at `address`; TimeoutError after."""
    start = time.monotonic()
    while name not in await connected_names(address):
        if time.monotonic() - start > timeout.total_seconds():
            raise TimeoutError(f"{name} not connected to {address} after {timeout}")
        await asyncio.sleep(0.02)
    return time.monotonic() - start


def test_a_bot_fails_over_to_another_referee_and_plays_on_there(fresh_database_url: str) -> None:
    out = io.StringIO()

    async def scenario() -> None:
        async with (
            referee_on(fresh_database_url, "referee-a") as first,
            referee_on(fresh_database_url, "referee-b") as second,
        ):
            names = ["hopper", "r1", "r2"]
            tokens = [await register(first.address, n) for n in names]
            hopper = RandomBot(1)
            hopper.report = BotReport(out, every=timedelta(hours=1))
            task = asyncio.create_task(
                hopper.run_async(f"{first.address},{second.address}", tokens[0])
            )
            try:
                await until_connected(first.address, "hopper", timedelta(seconds=10))
                assert "hopper" not in await connected_names(second.address)
                stopped_at = time.monotonic()
                await first.stop(timedelta(0))
                await until_connected(second.address, "hopper", BACK_WITHIN * 2)
                took = time.monotonic() - stopped_at
                print(f"failover: back on the second referee {took:.3f}s after the first stopped")
                assert took < BACK_WITHIN.total_seconds(), f"back after {took:.2f}s"
                assert not task.done()
                # It plays on there: a match the second referee runs ends with its MatchEnd.
                others: list[tuple[Bot, str]] = [
                    (RandomBot(2), tokens[1]),
                    (RandomBot(3), tokens[2]),
                ]
                async with playing(others, second.address):
                    match_id = await create_match(second.address, "hart", names, seed=3)
                    await wait_finished(second.address, match_id)
                    for _ in range(200):
                        if any(e.match_id == match_id for e in hopper.finished):
                            break
                        await asyncio.sleep(0.02)
                assert [e.match_id for e in hopper.finished] == [match_id]
            finally:
                hopper.stop()
                await asyncio.wait_for(task, 10)

    asyncio.run(scenario())
    text = out.getvalue()
    lines = [line for line in text.splitlines() if "connected to" in line]
    # The report (and the log) say which referee the bot is talking to, in order.
    assert len(lines) == 2, text
    assert "as hopper" in lines[0] and "as hopper" in lines[1]
    assert (
        lines[0].split("connected to ")[1].split()[0]
        != lines[1].split("connected to ")[1].split()[0]
    )


def test_a_dead_first_address_costs_a_bot_well_under_a_second(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with referee_on(fresh_database_url, "referee-b") as live:
            token = await register(live.address, "late")
            bot = RandomBot(4)
            started = time.monotonic()
            task = asyncio.create_task(
                bot.run_async([f"127.0.0.1:{free_port()}", live.address], token)
            )
            try:
                await until_connected(live.address, "late", timedelta(seconds=5))
                assert time.monotonic() - started < 1.0
            finally:
                bot.stop()
                await asyncio.wait_for(task, 10)

    asyncio.run(scenario())


def test_a_bot_fails_over_when_its_referee_process_is_killed(
    fresh_database_url: str, redis_server_url: str, tmp_path: Path
) -> None:
    """kill -9: no goodbye, the stream breaks with UNAVAILABLE; the bot is on the next referee
    within the same couple of seconds."""

    async def scenario() -> None:
        port = free_port()
        process = _serve(fresh_database_url, port, tmp_path, redis_server_url)
        try:
            doomed = f"127.0.0.1:{port}"
            await until_serving(doomed)
            async with referee_on(fresh_database_url, "survivor") as survivor:
                token = await register(survivor.address, "stubborn")
                bot = RandomBot(5)
                task = asyncio.create_task(bot.run_async([doomed, survivor.address], token))
                try:
                    await until_connected(doomed, "stubborn", timedelta(seconds=10))
                    killed_at = time.monotonic()
                    process.send_signal(signal.SIGKILL)
                    await until_connected(survivor.address, "stubborn", BACK_WITHIN * 2)
                    took = time.monotonic() - killed_at
                    print(f"failover after kill -9: {took:.3f}s")
                    assert took < BACK_WITHIN.total_seconds(), f"back after {took:.2f}s"
                    assert bot.bot_name == "stubborn" and not task.done()
                finally:
                    bot.stop()
                    await asyncio.wait_for(task, 10)
        finally:
            process.kill()
            process.wait(10)

    asyncio.run(scenario())


def test_a_referee_that_never_says_welcome_is_left_for_the_next(fresh_database_url: str) -> None:
    """A host that accepts the connection and then says nothing (a hung process) costs a bot
    with several referees FAILOVER_WELCOME_TIMEOUT, not the 10 s a lone referee gets."""

    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # and never answer the HTTP/2 handshake

    async def scenario() -> None:
        silent = await asyncio.start_server(hold, "127.0.0.1", 0)
        silent_address = f"127.0.0.1:{silent.sockets[0].getsockname()[1]}"
        async with silent, referee_on(fresh_database_url, "live") as live:
            token = await register(live.address, "patient")
            bot = RandomBot(6)
            started = time.monotonic()
            task = asyncio.create_task(bot.run_async([silent_address, live.address], token))
            try:
                await until_connected(live.address, "patient", timedelta(seconds=8))
                took = time.monotonic() - started
                assert FAILOVER_WELCOME_TIMEOUT.total_seconds() <= took < 5.0, took
                assert not task.done()
            finally:
                bot.stop()
                await asyncio.wait_for(task, 10)
                for writer in held:
                    writer.close()
                    await writer.wait_closed()

    asyncio.run(scenario())
