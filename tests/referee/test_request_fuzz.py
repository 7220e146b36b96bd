"""Junk bytes at every entry point of a real referee, over a real socket.

Every method of every service the referee serves (the public API, the bot stream, health,
reflection) is called through a raw channel with bytes that do not decode, with requests nested
deeper than the decoder allows and with seeded random bytes, with and without the admin token.
No call may end `UNKNOWN` or `INTERNAL` or echo a long message; one that does not decode ends
`INVALID_ARGUMENT` with a short message, counted in `arena_rpc_errors_total`.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterator

import grpc
import pytest
from google.protobuf.descriptor import MethodDescriptor
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from arena.referee.rpc import MAX_ERROR_CHARS
from arena.v1 import account_pb2, arena_pb2, bot_pb2
from tests.referee.harness import ADMIN_METADATA, register, running_referee
from tests.referee.test_limits import counter, hello

pytestmark = pytest.mark.integration

SERVICES = (
    arena_pb2.DESCRIPTOR.services_by_name["ArenaService"],
    account_pb2.DESCRIPTOR.services_by_name["AccountService"],
    bot_pb2.DESCRIPTOR.services_by_name["BotService"],
    health_pb2.DESCRIPTOR.services_by_name["Health"],
    reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"],
)
RANDOM_CALLS = 24
"""Calls of seeded random bytes per method (half with the admin token)."""
PLAY_STREAMS = 600
"""Bot streams of random messages (half of them after a right Hello)."""
DEEP_GROUPS = b"\x0b" * 120 + b"\x0c" * 120
"""Unknown groups nested 120 deep: no message type decodes it."""
BAD = (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL)


def methods() -> Iterator[MethodDescriptor]:
    for service in SERVICES:
        yield from service.methods


def nested_options(depth: int) -> bytes:
    """A CreateMatchRequest whose `options` nest `depth` objects deep."""
    inner: dict[str, object] = {}
    top = inner
    for _ in range(depth):
        inner["a"] = {}
        inner = inner["a"]  # type: ignore[assignment]
    request = arena_pb2.CreateMatchRequest(game="hart", bots=["x", "y", "z"])
    request.options.update(top)
    return request.SerializeToString()


async def outcome(
    channel: grpc.aio.Channel,
    method: MethodDescriptor,
    messages: list[bytes],
    metadata: tuple[tuple[str, str], ...] = (),
) -> tuple[grpc.StatusCode, str]:
    """Call `method` with already-encoded `messages`; its status and details."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    kind = (method.client_streaming, method.server_streaming)
    identity = {"request_serializer": None, "response_deserializer": None}
    try:
        if kind == (False, False):
            await channel.unary_unary(path, **identity)(messages[0], metadata=metadata, timeout=5)
        elif kind == (False, True):
            call = channel.unary_stream(path, **identity)(messages[0], metadata=metadata, timeout=2)
            async for _ in call:
                pass
        else:

            async def requests() -> AsyncIterator[bytes]:
                for message in messages:
                    yield message

            call = channel.stream_stream(path, **identity)(requests(), metadata=metadata, timeout=5)
            async for _ in call:
                pass
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or ""
    return grpc.StatusCode.OK, ""


def test_undecodable_requests_are_invalid_argument_short_and_counted(
    fresh_database_url: str,
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            channel = grpc.aio.insecure_channel(server.address)
            async with channel:
                api = arena_pb2.DESCRIPTOR.services_by_name["ArenaService"]
                cases = [
                    (api.methods_by_name["GetMatch"], b"\xff", ()),
                    (api.methods_by_name["CreateMatch"], nested_options(60), ()),
                    (api.methods_by_name["CreateMatch"], nested_options(60), ADMIN_METADATA),
                ]
                for method, payload, metadata in cases:
                    before = counter(
                        "arena_rpc_errors_total", method=method.name, code="INVALID_ARGUMENT"
                    )
                    code, details = await outcome(channel, method, [payload], metadata)
                    assert code == grpc.StatusCode.INVALID_ARGUMENT, (method.name, details)
                    assert (
                        details == f"the request does not decode as {method.input_type.full_name}"
                    )
                    after = counter(
                        "arena_rpc_errors_total", method=method.name, code="INVALID_ARGUMENT"
                    )
                    assert after == before + 1

    asyncio.run(scenario())


def test_junk_at_every_entry_point_never_ends_unknown_or_internal(
    fresh_database_url: str,
) -> None:
    rng = random.Random(26)

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            token = await register(server.address, "fuzzed")
            channel = grpc.aio.insecure_channel(server.address)
            seen: dict[str, set[grpc.StatusCode]] = {}
            async with channel:
                for method in methods():
                    name = f"{method.containing_service.name}/{method.name}"
                    for payload in (b"\xff", DEEP_GROUPS, b"\x0a\xff\xff\xff\xff\x0f"):
                        code, details = await outcome(channel, method, [payload], ADMIN_METADATA)
                        assert code == grpc.StatusCode.INVALID_ARGUMENT, (name, code, details)
                        assert len(details) <= MAX_ERROR_CHARS
                    for attempt in range(RANDOM_CALLS):
                        junk = [rng.randbytes(rng.randrange(0, 300)) for _ in range(3)]
                        metadata = ADMIN_METADATA if attempt % 2 else ()
                        code, details = await outcome(channel, method, junk, metadata)
                        seen.setdefault(name, set()).add(code)
                        assert code not in BAD, (name, code, details, junk)
                        assert len(details) <= MAX_ERROR_CHARS, (name, details)
                play = bot_pb2.DESCRIPTOR.services_by_name["BotService"].methods_by_name["Play"]
                for stream in range(PLAY_STREAMS):
                    junk = [
                        rng.randbytes(rng.randrange(0, 200)) for _ in range(rng.randrange(1, 6))
                    ]
                    if stream % 2:
                        junk = [hello(token), *junk]
                    code, details = await outcome(channel, play, junk)
                    seen.setdefault("Play", set()).add(code)
                    assert code not in BAD, (code, details, junk)
            assert grpc.StatusCode.INVALID_ARGUMENT in seen["Play"]

    asyncio.run(scenario())
