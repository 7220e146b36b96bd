"""BotService: the long-lived stream each bot process opens."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import grpc

from arena.auth import token_hash
from arena.clock import seconds, to_duration
from arena.referee import requests
from arena.referee.sessions import Session
from arena.v1 import bot_pb2, bot_pb2_grpc

if TYPE_CHECKING:
    from arena.referee.app import Referee

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL = 10.0


class BotService(bot_pb2_grpc.BotServiceServicer):
    """Authenticates a bot's stream and routes its messages to its matches."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee

    async def Play(
        self,
        request_iterator: AsyncIterator[bot_pb2.BotMessage],
        context: grpc.aio.ServicerContext[bot_pb2.BotMessage, bot_pb2.ArenaMessage],
    ) -> AsyncIterator[bot_pb2.ArenaMessage]:
        try:
            first = await anext(aiter(request_iterator))
        except StopAsyncIteration:
            return
        if first.WhichOneof("kind") != "hello":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message of a bot stream must be Hello"
            )
        if not first.hello.token:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "Hello carries no token")
        bot = await self.referee.bot_for_token_hash(token_hash(first.hello.token))
        if bot is None:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown bot token")
        assert bot is not None
        bot_id, bot_name = bot
        ids = {"bot": bot_name, "bot_id": bot_id}
        session = self.referee.hub.connect(bot_id, bot_name)
        session.form = first.hello.form
        log.info(
            "bot %s (%s) connected: %s", bot_name, bot_id, first.hello.client or "?", extra=ids
        )
        resume = self.referee.resume_messages(bot_id)
        welcome = bot_pb2.Welcome(
            bot_id=bot_id,
            bot_name=bot_name,
            heartbeat_interval=to_duration(seconds(HEARTBEAT_INTERVAL)),
            reconnect_grace=to_duration(seconds(self.referee.hub.reconnect_grace)),
            active_matches=len(self.referee.matches_of(bot_id)),
        )
        reader = asyncio.create_task(self._read(session, request_iterator))
        try:
            yield bot_pb2.ArenaMessage(welcome=welcome)
            for message in resume:
                yield message
            while (message := await session.outbox.get()) is not None:
                yield message
        finally:
            reader.cancel()
            self.referee.hub.disconnect(session)
            log.info("bot %s (%s) disconnected", bot_name, bot_id, extra=ids)

    async def _read(
        self, session: Session, request_iterator: AsyncIterator[bot_pb2.BotMessage]
    ) -> None:
        try:
            async for message in request_iterator:
                reply = self.referee.handle_bot_message(session, message)
                if reply is not None:
                    session.send(reply)
        except asyncio.CancelledError:
            raise
        except Exception:  # a broken stream: the writer ends and the bot may reconnect
            log.info("bot %s stream broke", session.bot_name, exc_info=True)
        finally:
            session.close()


def malformed(message: str) -> bot_pb2.ArenaMessage:
    """A Problem for a message that makes no sense."""
    return requests.problem(0, 0, bot_pb2.PROBLEM_KIND_MALFORMED_MESSAGE, message)
