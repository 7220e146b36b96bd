"""How a public RPC refuses: one status code per cause, a clipped message, the error metric."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from arena.ops import metrics
from arena.referee import arguments
from arena.referee.auth import bearer, same_token
from arena.referee.limits import clip
from engines import UnknownGame

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


async def require_admin(context: Context, method: str, admin_token: str) -> None:
    """Refuse the call unless its metadata carries `authorization: Bearer <admin_token>`."""
    token = bearer(tuple(context.invocation_metadata() or ()))
    if token is None:
        await fail(
            context,
            method,
            grpc.StatusCode.UNAUTHENTICATED,
            "this call needs `authorization: Bearer <admin token>` metadata",
        )
    if not same_token(token, admin_token):
        await fail(context, method, grpc.StatusCode.PERMISSION_DENIED, "wrong admin token")


def is_admin(context: Context, admin_token: str) -> bool:
    """Whether the call carries the admin token."""
    token = bearer(tuple(context.invocation_metadata() or ()))
    return token is not None and same_token(token, admin_token)


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
