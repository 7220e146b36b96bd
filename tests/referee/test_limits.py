"""The referee's bounds over real sockets: sizes, the Hello timeout, rates, slow readers, junk."""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import grpc
import pytest
from prometheus_client import REGISTRY

from arena.referee.limits import Limits, Rate, RateLimiter, clip, peer_address
from arena.referee.sessions import Session
from arena.sdk import Bot
from arena.v1 import arena_pb2, bot_pb2
from tests.referee.bots import RandomBot, ScriptedAnswerBot, json_action
from tests.referee.harness import (
    ADMIN,
    ADMIN_METADATA,
    create_match,
    first_problems,
    playing,
    register,
    running_referee,
    stub,
)

pytestmark = pytest.mark.integration

PLAY = "/arena.v1.BotService/Play"


def counter(name: str, **labels: str) -> float:
    """The current value of a counter sample (0 before its first increment)."""
    return REGISTRY.get_sample_value(name, labels) or 0.0


def raw_play(channel: grpc.aio.Channel) -> grpc.aio.StreamStreamMultiCallable:
    """The Play method taking already-encoded request bytes."""
    return channel.stream_stream(
        PLAY, request_serializer=None, response_deserializer=bot_pb2.ArenaMessage.FromString
    )


def hello(token: str) -> bytes:
    return bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token)).SerializeToString()


async def status_of(call: grpc.aio.StreamStreamCall) -> tuple[grpc.StatusCode, str, int]:
    """Read a call to its end: (status code, details, messages received)."""
    received = 0
    try:
        async for _ in call:
            received += 1
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or "", received
    return await call.code(), await call.details(), received


async def quiet_forever(first: list[bytes]) -> AsyncIterator[bytes]:
    """Send `first`, then keep the stream open without a word."""
    for item in first:
        yield item
    await asyncio.Event().wait()


def test_a_huge_hello_is_refused_before_its_token_is_read(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            channel, _ = stub(server.address)
            async with channel:
                before = counter("arena_failed_logins_total", reason="oversized")
                call = raw_play(channel)(quiet_forever([hello("x" * 30_000)]))
                code, details, _ = await asyncio.wait_for(status_of(call), 10)
                assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "a Hello may have at most 1024" in details
                assert counter("arena_failed_logins_total", reason="oversized") == before + 1
                # Above the server-wide cap gRPC itself refuses the message.
                call = raw_play(channel)(quiet_forever([hello("x" * 100_000)]))
                code, details, _ = await asyncio.wait_for(status_of(call), 10)
                assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "larger than max" in details

    asyncio.run(scenario())


def test_a_logged_in_bot_may_not_send_more_than_the_documented_size(
    fresh_database_url: str,
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            token = await register(server.address, "big")
            channel, _ = stub(server.address)
            async with channel:
                action = bot_pb2.BotMessage(
                    action=bot_pb2.Action(match_id=1, decision=0, json="[" + "0," * 40_000 + "0]")
                )
                call = raw_play(channel)(quiet_forever([hello(token), action.SerializeToString()]))
                code, details, received = await asyncio.wait_for(status_of(call), 10)
                assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, details
                assert str(Limits().max_message_bytes) in details
                assert received >= 1, "the Hello was accepted first"

    asyncio.run(scenario())


def test_a_stream_without_hello_is_closed_after_the_hello_timeout(
    fresh_database_url: str,
) -> None:
    limits = Limits(hello_timeout=timedelta(seconds=0.5))

    async def scenario() -> None:
        async with running_referee(fresh_database_url, limits=limits) as server:
            channel, _ = stub(server.address)
            async with channel:
                begun = time.monotonic()
                code, details, _ = await asyncio.wait_for(
                    status_of(raw_play(channel)(quiet_forever([]))), 10
                )
                assert code == grpc.StatusCode.DEADLINE_EXCEEDED
                assert "no Hello within 0.5s" in details
                assert time.monotonic() - begun < 5

    asyncio.run(scenario())


def test_failed_logins_are_rate_limited_per_address_and_counted(fresh_database_url: str) -> None:
    limits = Limits(
        failed_logins=Rate(burst=3, every=timedelta(seconds=60)),
        failed_login_delay=timedelta(milliseconds=10),
    )

    async def scenario() -> None:
        async with running_referee(fresh_database_url, limits=limits) as server:
            good = await register(server.address, "good")
            channel, _ = stub(server.address)
            async with channel:
                failed = counter("arena_failed_logins_total", reason="unknown_token")
                limited = counter("arena_rate_limited_total", limit="login")
                codes = []
                for attempt in range(6):
                    call = raw_play(channel)(quiet_forever([hello(f"arena_wrong{attempt:03d}")]))
                    codes.append((await asyncio.wait_for(status_of(call), 10))[0])
                assert (
                    codes
                    == [grpc.StatusCode.UNAUTHENTICATED] * 3
                    + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 3
                )
                assert counter("arena_failed_logins_total", reason="unknown_token") == failed + 3
                assert counter("arena_rate_limited_total", limit="login") == limited + 3
                # The address is over its limit: a right token still logs in.
                call = raw_play(
                    channel
                )()  # written to, not fed by a generator cancel() would close
                await call.write(hello(good))
                first = await asyncio.wait_for(call.read(), 10)
                assert first.WhichOneof("kind") == "welcome"
                call.cancel()

    asyncio.run(scenario())


def test_a_bot_that_does_not_read_is_disconnected_with_a_clear_status(
    fresh_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    # The sending rate is not what this test is about: lift its limit.
    limits = Limits(outbox_messages=50, messages=Rate(burst=10**9, every=timedelta(seconds=1)))

    async def scenario() -> None:
        async with running_referee(fresh_database_url, limits=limits) as server:
            token = await register(server.address, "deaf")
            before = counter("arena_slow_consumer_disconnects_total")
            channel, _ = stub(server.address)
            async with channel:
                junk = bot_pb2.BotMessage(action=bot_pb2.Action(match_id=77)).SerializeToString()

                async def flood() -> AsyncIterator[bytes]:
                    yield hello(token)
                    for _ in range(200_000):
                        yield junk

                call = raw_play(channel)(flood())
                # Never reading, only writing: the referee ends the call mid-flood.
                code = await asyncio.wait_for(call.code(), 120)
                details = await call.details()
            # The referee ends the stream with RESOURCE_EXHAUSTED; a client still writing when
            # that arrives may see its own failed write instead (grpc.aio reports INTERNAL).
            if code != grpc.StatusCode.INTERNAL:
                assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, details
                assert "fell 50 messages behind" in details
            assert counter("arena_slow_consumer_disconnects_total") == before + 1
            assert not server.referee.hub.is_connected(1)

    with caplog.at_level(logging.INFO):
        asyncio.run(scenario())
    assert any("disconnected: 50 unread messages" in r.getMessage() for r in caplog.records)


def test_an_overflowing_outbox_closes_its_session() -> None:
    async def scenario() -> None:
        session = Session(1, "deaf", outbox_limit=3)
        before = counter("arena_slow_consumer_disconnects_total")
        for _ in range(3):
            session.send(bot_pb2.ArenaMessage(heartbeat=bot_pb2.Heartbeat()))
        assert not session.fell_behind and session.outbox.qsize() == 3
        session.send(bot_pb2.ArenaMessage(heartbeat=bot_pb2.Heartbeat()))
        assert session.fell_behind and session.closed
        assert session.outbox.get_nowait() is None, "queued messages are dropped, the end stays"
        assert counter("arena_slow_consumer_disconnects_total") == before + 1
        session.send(bot_pb2.ArenaMessage(heartbeat=bot_pb2.Heartbeat()))
        assert session.outbox.empty()

    asyncio.run(scenario())


def test_junk_after_login_gets_a_problem_one_warning_per_kind_and_a_count(
    fresh_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            token = await register(server.address, "junky")
            undecodable = counter("arena_junk_messages_total", kind="undecodable")
            malformed = counter("arena_junk_messages_total", kind="malformed")
            channel, _ = stub(server.address)
            async with channel:
                garbage = [b"\xff\xff\xff", b"\x0a\x05abc", bytes(range(1, 40))]
                empty = bot_pb2.BotMessage().SerializeToString()
                messages = [hello(token), *garbage * 5, *[empty] * 5]
                call = raw_play(channel)(quiet_forever(messages))
                problems = await first_problems(call, 20)
            assert all(p.kind == bot_pb2.PROBLEM_KIND_MALFORMED_MESSAGE for p in problems)
            assert "does not decode as arena.v1.BotMessage" in problems[0].message
            assert counter("arena_junk_messages_total", kind="undecodable") == undecodable + 15
            assert counter("arena_junk_messages_total", kind="malformed") == malformed + 5

    with caplog.at_level(logging.INFO):
        asyncio.run(scenario())
    warnings = [
        r
        for r in caplog.records
        if r.levelno >= logging.WARNING and r.name == "arena.referee.bot_service"
    ]
    assert [r.getMessage().split(" message ")[0] for r in warnings] == [
        "bot junky sent a undecodable",
        "bot junky sent a malformed",
    ], [r.getMessage() for r in warnings]
    # The arena's own loggers; grpc.aio's poller may log its own event-loop noise in a process
    # that has run several loops (seen under pytest-xdist), which is no client input's doing.
    with_traceback = [
        (r.name, r.getMessage())
        for r in caplog.records
        if r.exc_info is not None and r.name.startswith("arena")
    ]
    assert not with_traceback, f"no tracebacks for client input: {with_traceback}"


def test_registration_is_rate_limited_and_can_be_closed(fresh_database_url: str) -> None:
    limits = Limits(registrations=Rate(burst=2, every=timedelta(seconds=60)))

    async def scenario() -> None:
        async with running_referee(fresh_database_url, limits=limits) as server:
            channel, api = stub(server.address)
            async with channel:
                before = counter("arena_rate_limited_total", limit="register")
                await api.RegisterBot(arena_pb2.RegisterBotRequest(name="a1"))
                await api.RegisterBot(arena_pb2.RegisterBotRequest(name="a2"))
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await api.RegisterBot(arena_pb2.RegisterBotRequest(name="a3"))
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert "registrations" in (caught.value.details() or "")
                assert counter("arena_rate_limited_total", limit="register") == before + 1
        closed = Limits(open_registration=False)
        async with running_referee(fresh_database_url, limits=closed) as server:
            channel, api = stub(server.address)
            async with channel:
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await api.RegisterBot(arena_pb2.RegisterBotRequest(name="b1"))
                assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert "registration is closed" in (caught.value.details() or "")
                reply = await api.RegisterBot(
                    arena_pb2.RegisterBotRequest(name="b1"), metadata=ADMIN_METADATA
                )
                assert reply.token
            command = [sys.executable, "-m", "arena.cli.main", "bot", "register", "b2", "--quiet"]
            command += ["--address", server.address, "--admin-token", ADMIN]
            done = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
            out, _ = await done.communicate()
            assert done.returncode == 0 and out.decode().startswith("arena_")

    asyncio.run(scenario())


def test_errors_echo_only_a_short_prefix_of_client_input(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            channel, api = stub(server.address)
            async with channel:
                long = "q" * 5_000
                for call in (
                    api.ListMatches(arena_pb2.ListMatchesRequest(bot=long)),
                    api.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=long)),
                    api.RegisterBot(arena_pb2.RegisterBotRequest(name=long)),
                    api.CreateMatch(
                        arena_pb2.CreateMatchRequest(game=long, bots=["a", "b"]),
                        metadata=ADMIN_METADATA,
                    ),
                    api.CreateMatch(
                        arena_pb2.CreateMatchRequest(game="hart", bots=[long, "b", "c"]),
                        metadata=ADMIN_METADATA,
                    ),
                ):
                    with pytest.raises(grpc.aio.AioRpcError) as caught:
                        await call
                    details = caught.value.details() or ""
                    assert len(details) < 400, details[:200]

    asyncio.run(scenario())


def test_a_huge_bad_answer_is_quoted_only_briefly(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["loud", "q1", "q2"]
            tokens = [await register(server.address, n) for n in names]
            loud = ScriptedAnswerBot([json_action([12345] * 5_000)])
            bots: list[Bot] = [loud, RandomBot(1), RandomBot(2)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=2)
                stored: list[str] = []
                while not stored:  # the strike is logged with its decision, once all answered
                    await asyncio.sleep(0.05)
                    rows = await server.referee.db.decisions(match_id)
                    stored = [why for row in rows for why in row.strikes.values()]
            strike = next(p for p in loud.problems if p.strike)
            assert "12345" in strike.message and len(strike.message) < 400, strike.message[:500]
            assert all(len(why) < 400 for why in stored), stored

    asyncio.run(scenario())


def test_token_buckets_refill_and_forget_idle_keys() -> None:
    now = [0.0]
    limiter = RateLimiter(
        Rate(burst=2, every=timedelta(seconds=10)), max_keys=2, clock=lambda: now[0]
    )
    assert limiter.take("a") and limiter.take("a") and not limiter.take("a")
    assert not limiter.allows("a") and limiter.allows("b")
    now[0] = 10.0
    assert limiter.take("a") and not limiter.take("a"), "one call earned back in 10 s"
    limiter.take("c")  # a third key: the full bucket of "b" is forgotten, not the empty "a"
    assert not limiter.take("a")
    assert [peer_address(p) for p in ("ipv4:10.0.0.7:5123", "ipv6:[::1]:80", "unix:/x", None)] == [
        "10.0.0.7",
        "::1",
        "unix:/x",
        "unknown",
    ]
    assert clip("x" * 100, 10) == "xxxxxxxxxx... (90 more characters)" and clip("short") == "short"


def test_a_bot_that_sends_too_fast_is_disconnected(
    fresh_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    limits = Limits(messages=Rate(burst=100, every=timedelta(seconds=60)))

    async def scenario() -> None:
        async with running_referee(fresh_database_url, limits=limits) as server:
            token = await register(server.address, "chatty")
            before = counter("arena_rate_limited_total", limit="messages")
            heartbeat = bot_pb2.BotMessage(heartbeat=bot_pb2.Heartbeat()).SerializeToString()
            channel, _ = stub(server.address)
            async with channel:
                # One message over the burst, then silence: the client is done writing when the
                # referee ends the call (a client still writing would see its own write fail).
                call = raw_play(channel)(quiet_forever([hello(token), *[heartbeat] * 101]))
                code, details, received = await asyncio.wait_for(status_of(call), 30)
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, details
            assert "more than 100 messages at once" in details
            assert received >= 100, "the first 100 heartbeats were answered"
            assert counter("arena_rate_limited_total", limit="messages") == before + 1
            assert not server.referee.hub.is_connected(1)

    with caplog.at_level(logging.INFO):
        asyncio.run(scenario())
    assert any("over 100 messages at once" in r.getMessage() for r in caplog.records)
