"""How a public RPC refuses: one status code per cause, a clipped message, the error metric;
wrong admin tokens, rate limited; requests that do not decode, refused at the door."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from arena.ops import metrics
from arena.referee import arguments
from arena.referee.limits import clip
from arena.storage.errors import StorageError
from engines import EngineError, UnknownGame

MAX_ERROR_CHARS = 300
"""The longest error message sent back (messages may quote the caller's input)."""

Context = grpc.aio.ServicerContext[Any, Any]
T = TypeVar("T")
Rpc = Callable[[Any, Any, Context], Awaitable[T]]


async def fail(context: Context, method: str, code: grpc.StatusCode, message: str) -> NoReturn:
    """End the call `method` with `code`, counting it in `arena_rpc_errors_total`."""
    metrics.RPC_ERRORS.labels(method, code.name).inc()
    # Messages may quote the caller's input: never send back more than a short prefix of it.
    await context.abort(code, clip(message, MAX_ERROR_CHARS))
    raise AssertionError("abort returned")  # pragma: no cover


def checked(rpc: Rpc[T]) -> Rpc[T]:
    """Answer `INVALID_ARGUMENT` for an `arguments.InvalidArgument` raised by a unary RPC."""

    @functools.wraps(rpc)
    async def wrapper(self: Any, request: Any, context: Context) -> T:
        try:
            return await rpc(self, request, context)
        except arguments.InvalidArgument as exc:
            await fail(context, rpc.__name__, grpc.StatusCode.INVALID_ARGUMENT, str(exc))

    return wrapper


@dataclass(frozen=True, slots=True)
class Refusal:
    """One cause of failure: the exceptions that mean it, its status code and its message."""

    kinds: type[Exception] | tuple[type[Exception], ...]
    code: grpc.StatusCode
    message: str = "{}"
    """`{}` stands for the exception's text (a `LookupError`'s first argument, unquoted)."""

    def text(self, exc: Exception) -> str:
        """The message sent for `exc`."""
        detail = str(exc.args[0]) if isinstance(exc, LookupError) and exc.args else str(exc)
        return self.message.format(detail)


UNKNOWN = (
    Refusal(UnknownGame, grpc.StatusCode.NOT_FOUND),
    Refusal(LookupError, grpc.StatusCode.NOT_FOUND),
)
"""The refusals every RPC that names things shares: an unknown game, bot or id is NOT_FOUND."""
VERSION_TEST_REFUSALS = (
    *UNKNOWN,
    Refusal((EngineError, ValueError), grpc.StatusCode.INVALID_ARGUMENT),
    Refusal(StorageError, grpc.StatusCode.UNAVAILABLE),
)
"""Why StartVersionTest, GetVersionTest and StopVersionTest fail: an unknown bot, test or game
is NOT_FOUND (stopping a test that is not running too), a bad combination (too few fillers, a
seat count the game has not) INVALID_ARGUMENT, an unreachable database UNAVAILABLE."""


async def answer(
    context: Context, method: str, call: Callable[[], Awaitable[T]], refusals: tuple[Refusal, ...]
) -> T:
    """The result of `call`, or the call ended with the first refusal matching what it raised.

    An `InvalidArgument` passes through to `checked`; an exception no refusal names propagates.
    """
    try:
        return await call()
    except arguments.InvalidArgument:
        raise
    except Exception as exc:
        for refusal in refusals:
            if isinstance(exc, refusal.kinds):
                await fail(context, method, refusal.code, refusal.text(exc))
        raise


def game_options(wire: Struct) -> dict[str, Any]:
    """Game options from a request: a Struct holds only doubles, so whole numbers become ints."""
    options = json_format.MessageToDict(wire)
    return {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in options.items()}


DRAIN = timedelta(milliseconds=200)
"""How long a refused stream's further messages are read (and dropped) before it ends."""
DRAIN_MESSAGES = 64
"""Most messages read from a refused stream before it ends."""


async def drain(requests: AsyncIterator[Any]) -> None:
    """Read what a refused client still sends, until it half-closes or for `DRAIN` at most.

    A grpc.aio client whose write fails because the stream has ended reports INTERNAL
    instead of the status the server sent (grpc/grpc#36066); one that sends a few messages and
    closes gets the refusal's real status this way. The reading task is not cancelled when the
    time is up (cancelling a pending read of grpc.aio's server crashed the process): it ends
    with the stream."""

    async def read() -> None:
        count = 0
        with contextlib.suppress(Exception):  # the stream ended under it
            async for _ in requests:
                count += 1
                if count >= DRAIN_MESSAGES:
                    return

    reader = asyncio.create_task(read())
    _draining.add(reader)
    reader.add_done_callback(_draining.discard)
    await asyncio.wait({reader}, timeout=DRAIN.total_seconds())


_draining: set[asyncio.Task[None]] = set()
"""Readers still draining a refused stream (a task must be referenced until it ends)."""


@dataclass(frozen=True, slots=True)
class Undecodable:
    """Stands for a request that did not decode as `type_name`."""

    type_name: str

    @property
    def message(self) -> str:
        """What the caller is told."""
        return f"the request does not decode as {self.type_name}"


def _decoding(deserializer: Callable[[bytes], Any], type_name: str) -> Callable[[bytes], Any]:
    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception:  # a DecodeError, or nesting deeper than the decoder allows
            return Undecodable(type_name)

    return decode


class DecodeRefusal(grpc.aio.ServerInterceptor):
    """Answers a request that does not decode with INVALID_ARGUMENT and a short message, counted
    in `arena_rpc_errors_total`, where grpc.aio answers UNKNOWN with the decoder's exception
    text. Outermost of the server's interceptors, so that no other one sees such a request."""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(details)
        if handler is None or handler.request_deserializer is None:
            return handler  # unknown method, or one that takes raw bytes (BotService.Play)
        method = details.method.rsplit("/", 1)[-1]
        decoder = handler.request_deserializer
        owner = getattr(decoder, "__self__", None)
        descriptor = getattr(owner, "DESCRIPTOR", None)
        type_name = descriptor.full_name if descriptor is not None else f"{method}'s request"
        return _rebuilt(handler, method, _decoding(decoder, type_name))


def _rebuilt(
    handler: grpc.RpcMethodHandler[Any, Any], method: str, decode: Callable[[bytes], Any]
) -> grpc.RpcMethodHandler[Any, Any]:
    """`handler` with `decode` for its requests and a behaviour that refuses `Undecodable`."""
    serialize = handler.response_serializer

    async def refuse(request: Any, context: Context) -> None:
        if isinstance(request, Undecodable):
            await fail(context, method, grpc.StatusCode.INVALID_ARGUMENT, request.message)

    async def checked_requests(requests: AsyncIterator[Any], context: Context) -> Any:
        async for request in requests:
            if isinstance(request, Undecodable):
                await drain(requests)
                await refuse(request, context)
            yield request

    # grpc.aio hands the handlers its own context, typed as the sync one by the stubs.
    if handler.unary_unary is not None:
        unary: Any = handler.unary_unary

        async def unary_unary(request: Any, context: Context) -> Any:
            await refuse(request, context)
            return await unary(request, context)

        return grpc.unary_unary_rpc_method_handler(unary_unary, decode, serialize)
    if handler.unary_stream is not None:
        streaming: Any = handler.unary_stream

        async def unary_stream(request: Any, context: Context) -> Any:
            await refuse(request, context)
            result = streaming(request, context)
            if inspect.isasyncgen(result):
                async for response in result:
                    yield response
            else:  # a coroutine that writes through the context
                await result

        return grpc.unary_stream_rpc_method_handler(unary_stream, decode, serialize)
    if handler.stream_unary is not None:
        gathering: Any = handler.stream_unary

        async def stream_unary(requests: AsyncIterator[Any], context: Context) -> Any:
            return await gathering(checked_requests(requests, context), context)

        return grpc.stream_unary_rpc_method_handler(stream_unary, decode, serialize)
    both: Any = handler.stream_stream

    async def stream_stream(requests: AsyncIterator[Any], context: Context) -> Any:
        result = both(checked_requests(requests, context), context)
        if inspect.isasyncgen(result):
            async for response in result:
                yield response
        else:
            await result

    return grpc.stream_stream_rpc_method_handler(stream_stream, decode, serialize)
