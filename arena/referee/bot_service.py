"""BotService: the long-lived stream each bot process opens, bounded before and after login.

The stream's messages arrive as raw bytes (see `add_to_server`) so the service, not gRPC, decides
what happens to a message that is too big or does not decode: before login the stream is closed,
after login the bot gets a Problem and the match goes on. Limits are in `arena.referee.limits`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any, NoReturn

import grpc
from google.protobuf.message import DecodeError

from arena.ops import metrics
from arena.referee import dispatch
from arena.referee.app import Referee
from arena.referee.auth import token_hash
from arena.referee.clock import to_duration
from arena.referee.limits import (
    Limits,
    RateLimiter,
    TokenBucket,
    Turns,
    peer_address,
    token_prefix,
)
from arena.referee.problems import malformed
from arena.referee.rpc import drain
from arena.referee.sessions import Session
from arena.storage.errors import StorageError
from arena.v1 import bot_pb2

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL = timedelta(seconds=10)
"""How often a bot is told to send a heartbeat."""
REPLACED = (
    "replaced: another stream opened with this bot's token and took over its matches; "
    "run one process per bot token"
)
DRAINING = (
    "this referee is stopping and handed its matches over; reconnect (to any referee of the "
    "arena) to resume them"
)
SERVICE_NAME = "arena.v1.BotService"
Context = grpc.aio.ServicerContext[bytes, bot_pb2.ArenaMessage]


class BotService:
    """Authenticates a bot's stream and routes its messages to its matches."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.limits = referee.config.limits
        self.failures_by_peer = RateLimiter(self.limits.failed_logins)
        self.failures_by_token = RateLimiter(self.limits.failed_logins)
        self._limited = Turns()

    def add_to_server(self, server: grpc.aio.Server) -> None:
        """Serve `Play` on `server`, taking its requests undecoded."""
        handlers: dict[str, grpc.RpcMethodHandler[bytes, bot_pb2.ArenaMessage]] = {
            "Play": grpc.stream_stream_rpc_method_handler(
                self.Play,
                request_deserializer=None,
                response_serializer=bot_pb2.ArenaMessage.SerializeToString,
            )
        }
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),)
        )
        server.add_registered_method_handlers(SERVICE_NAME, handlers)

    async def Play(
        self, request_iterator: AsyncIterator[bytes], context: Context
    ) -> AsyncIterator[bot_pb2.ArenaMessage]:
        """Hello first (within the Hello timeout), then any number of messages both ways."""
        peer = peer_address(context.peer())
        first = await self._hello(request_iterator, context, peer)
        if first is None:
            return
        bot_id, bot_name, hello = first
        ids = {"bot": bot_name, "bot_id": bot_id}
        session = self.referee.hub.connect(bot_id, bot_name)
        session.form = hello.form
        session.follows = hello.follow_host
        log.info("bot %s (%s) connected: %s", bot_name, bot_id, hello.client or "?", extra=ids)
        resume = dispatch.resume_messages(self.referee.runners, bot_id)
        active = len(dispatch.matches_of(self.referee.runners, bot_id))
        reader = asyncio.create_task(self._read(session, request_iterator))
        try:
            if self.referee.cluster is not None:
                # The hosts of its matches elsewhere send their MatchStarts and requests.
                active = max(active, await self.referee.cluster.routes.bot_connected(session))
            welcome = bot_pb2.Welcome(
                bot_id=bot_id,
                bot_name=bot_name,
                heartbeat_interval=to_duration(HEARTBEAT_INTERVAL),
                reconnect_grace=to_duration(self.referee.hub.reconnect_grace),
                active_matches=active,
                referee=self.referee.config.host,
            )
            yield bot_pb2.ArenaMessage(welcome=welcome)
            for message in resume:
                yield message
            while (queued := await session.outbox.get()) is not None:
                yield queued
            await _end_stream(context, session, self.limits, ids)
        finally:
            reader.cancel()
            self.referee.hub.disconnect(session)
            log.info("bot %s (%s) disconnected", bot_name, bot_id, extra=ids)
            if self.referee.cluster is not None:
                await self.referee.cluster.routes.bot_disconnected(session)

    async def _hello(
        self, request_iterator: AsyncIterator[bytes], context: Context, peer: str
    ) -> tuple[int, str, bot_pb2.Hello] | None:
        """Check the first message: (bot id, bot name, Hello), None if the stream ended first."""
        wait = self.limits.hello_timeout.total_seconds()
        try:
            raw = await asyncio.wait_for(anext(aiter(request_iterator)), wait)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            await self._refuse(
                context,
                None,
                peer,
                "no_hello",
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no Hello within {wait:g}s of opening the stream",
            )
        if len(raw) > self.limits.max_hello_bytes:
            metrics.JUNK_MESSAGES.labels("oversized").inc()
            await self._refuse(
                context,
                request_iterator,
                peer,
                "oversized",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the first message has {len(raw)} bytes; a Hello may have at most "
                f"{self.limits.max_hello_bytes}",
            )
        message = _decode(raw)
        if message is None or message.WhichOneof("kind") != "hello":
            metrics.JUNK_MESSAGES.labels("undecodable" if message is None else "malformed").inc()
            await self._refuse(
                context,
                request_iterator,
                peer,
                "not_hello",
                grpc.StatusCode.INVALID_ARGUMENT,
                "the first message of a bot stream must be Hello",
            )
        token = message.hello.token
        if not token:
            await self._refuse(
                context,
                request_iterator,
                peer,
                "no_token",
                grpc.StatusCode.UNAUTHENTICATED,
                "Hello carries no token",
            )
        prefix = token_prefix(token)
        if self.failures_by_peer.allows(peer) and self.failures_by_token.allows(prefix):
            bot = await _lookup(self.referee, context, token)
        else:
            # Over the failed-login rate: still check the token, so that guessing from an
            # address cannot lock a right token out, but one lookup at a time per address and
            # a wrong token answered only after a delay.
            async with self._limited.of(peer):
                bot = await _lookup(self.referee, context, token)
            if bot is None:
                metrics.RATE_LIMITED.labels("login").inc()
                metrics.FAILED_LOGINS.labels("rate_limited").inc()
                await asyncio.sleep(self.limits.failed_login_delay.total_seconds())
                await context.abort(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    "too many failed logins from your address or with this token; wait a few "
                    "seconds before trying again",
                )
        if bot is None:
            self.failures_by_token.take(prefix)
            await self._refuse(
                context,
                request_iterator,
                peer,
                "unknown_token",
                grpc.StatusCode.UNAUTHENTICATED,
                "unknown bot token",
            )
        return bot[0], bot[1], message.hello

    async def _refuse(
        self,
        context: Context,
        requests: AsyncIterator[bytes] | None,
        peer: str,
        reason: str,
        code: grpc.StatusCode,
        message: str,
    ) -> NoReturn:
        """End a stream that failed to log in (after reading what else it sent, if `requests`);
        it counts against its peer's failed logins."""
        self.failures_by_peer.take(peer)
        metrics.FAILED_LOGINS.labels(reason).inc()
        log.info("bot stream from %s refused (%s)", peer, reason)
        if requests is not None:
            await drain(requests)
        await context.abort(code, message)
        raise AssertionError("abort returned")  # pragma: no cover

    async def _read(self, session: Session, request_iterator: AsyncIterator[bytes]) -> None:
        warned: set[str] = set()
        rate = TokenBucket(self.limits.messages, time.monotonic())
        try:
            async for raw in request_iterator:
                if not rate.take(time.monotonic()):
                    metrics.RATE_LIMITED.labels("messages").inc()
                    session.flooded = True
                    return
                message = _decode(raw)
                if message is None:
                    reply: bot_pb2.ArenaMessage | None = malformed(
                        f"a message of {len(raw)} bytes does not decode as arena.v1.BotMessage; "
                        "it was ignored"
                    )
                    _junk(session, "undecodable", warned)
                elif self.referee.cluster is not None and dispatch.is_elsewhere(
                    self.referee.runners, message
                ):
                    reply = await self.referee.cluster.routes.forward(session.bot_id, message, raw)
                else:
                    reply = dispatch.handle_bot_message(self.referee.runners, session, message)
                    if reply is not None and _is_malformed(reply):
                        _junk(session, "malformed", warned)
                if reply is not None:
                    session.send(reply)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a broken stream: the writer ends and the bot may reconnect
            log.info("bot %s stream broke: %s", session.bot_name, type(exc).__name__)
        finally:
            session.close()


async def _end_stream(
    context: Context, session: Session, limits: Limits, ids: dict[str, Any]
) -> None:
    """End a stream whose session closed, with the status that says why (OK if none applies)."""
    if session.flooded:
        log.warning(
            "bot %s (%s) disconnected: over %s messages at once",
            session.bot_name,
            session.bot_id,
            limits.messages.burst,
            extra=ids,
        )
        await context.abort(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"you sent more than {limits.messages.burst} messages at once (at most "
            f"one per {limits.messages.every.total_seconds() * 1000:g} ms on "
            "average); reconnect to resume your matches",
        )
    if session.fell_behind:
        log.warning(
            "bot %s (%s) disconnected: %s unread messages",
            session.bot_name,
            session.bot_id,
            session.outbox_limit,
            extra=ids,
        )
        await context.abort(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"you fell {session.outbox_limit} messages behind: read your stream as fast "
            "as the arena writes it; reconnect to resume your matches",
        )
    if session.replaced:
        log.warning(
            "bot %s (%s): a newer stream replaced this one", session.bot_name, session.bot_id
        )
        await context.abort(grpc.StatusCode.ABORTED, REPLACED)
    if session.draining:
        await context.abort(grpc.StatusCode.UNAVAILABLE, DRAINING)
    if session.revoked is not None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, session.revoked)


async def _lookup(referee: Referee, context: Context, token: str) -> tuple[int, str] | None:
    """The (id, name) of the bot `token` belongs to; the call ends UNAVAILABLE if the database
    cannot say."""
    if len(token) > referee.config.limits.max_token_chars:
        return None
    try:
        return await referee.bot_for_token_hash(token_hash(token))
    except StorageError:
        metrics.FAILED_LOGINS.labels("unavailable").inc()
        await context.abort(
            grpc.StatusCode.UNAVAILABLE,
            "the arena cannot reach its database; try again in a few seconds",
        )
        raise AssertionError("abort returned") from None  # pragma: no cover


def _decode(raw: Any) -> bot_pb2.BotMessage | None:
    """The message in `raw`, or None if it is not a BotMessage."""
    try:
        return bot_pb2.BotMessage.FromString(raw)
    except (DecodeError, TypeError, RecursionError):
        return None


def _is_malformed(reply: bot_pb2.ArenaMessage) -> bool:
    return (
        reply.WhichOneof("kind") == "problem"
        and reply.problem.kind == bot_pb2.PROBLEM_KIND_MALFORMED_MESSAGE
    )


def _junk(session: Session, kind: str, warned: set[str]) -> None:
    """Count a bad message; log the first of each kind on a stream, without a traceback."""
    metrics.JUNK_MESSAGES.labels(kind).inc()
    if kind not in warned:
        warned.add(kind)
        log.warning(
            "bot %s sent a %s message (further ones on this stream are only counted)",
            session.bot_name,
            kind,
            extra={"bot": session.bot_name, "bot_id": session.bot_id},
        )
