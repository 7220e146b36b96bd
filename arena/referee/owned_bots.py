"""What an account does to its own bots: rotate the token, retire, start and list versions, keep
it always on.

Only the bot's owner or an admin gets here (`permissions.RULES`, checked by `guard.Guard`).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable
from typing import TypeVar

import grpc

from arena.referee import arguments
from arena.referee.account_forms import version_message, versions_message
from arena.referee.app import Referee
from arena.referee.auth import new_token, token_hash
from arena.referee.bot_routes import close_revoked
from arena.referee.rpc import Context, checked, fail
from arena.storage.accounts import Accounts, BotOwnership
from arena.storage.errors import Conflict, StorageError
from arena.storage.runners import Runners
from arena.tournament import entries
from arena.v1 import account_pb2
from arena.versiontest.entrants import SEPARATOR

T = TypeVar("T")
log = logging.getLogger(__name__)

ROTATED = (
    "this bot's token was rotated by its owner: reconnect with the new token (your matches "
    "continue, their open decisions are sent again)"
)
RETIRED = "this bot was retired by its owner; it can no longer play"


class OwnedBots:
    """RotateBotToken, RetireBot, CreateBotVersion, SetBotAlwaysOn and ListBotVersions."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.accounts = Accounts(referee.db.pool)

    @checked
    async def RotateBotToken(
        self, request: account_pb2.BotRef, context: Context
    ) -> account_pb2.RotatedToken:
        """A new token for the bot; the old one's stream is closed now."""
        bot = await self.find_bot(context, "RotateBotToken", request.bot)
        token = new_token()
        await storage(
            context, "RotateBotToken", self.accounts.rotate_token(bot.id, token_hash(token))
        )
        await self._close_stream(bot.id, ROTATED)
        return account_pb2.RotatedToken(bot=bot.name, token=token)

    @checked
    async def RetireBot(
        self, request: account_pb2.BotRef, context: Context
    ) -> account_pb2.BotVersions:
        """Retire the bot: no more play, no leaderboard; its history stays."""
        bot = await self.find_bot(context, "RetireBot", request.bot)
        for tournament_id in await storage(
            context, "RetireBot", self.accounts.open_entries(bot.id)
        ):
            # It leaves new pairings: from the next unpaired round of each on (a tournament with
            # no round left to change keeps it).
            with contextlib.suppress(LookupError, ValueError):
                await storage(
                    context, "RetireBot", entries.withdraw(self.referee.db, tournament_id, bot.name)
                )
        for retired in await storage(context, "RetireBot", self.accounts.retire(bot.id)):
            await self._close_stream(retired, RETIRED)  # the bot's, and its versions' own bots'

        return await self._versions(context, "RetireBot", request.bot)

    @checked
    async def CreateBotVersion(
        self, request: account_pb2.CreateBotVersionRequest, context: Context
    ) -> account_pb2.BotVersion:
        """A new version of the bot: its next matches record it."""
        check_name("label", request.label)
        arguments.text("notes", request.notes, required=False)
        bot = await self.find_versioned_bot(context, "CreateBotVersion", request.bot)
        if bot.retired_at is not None:
            await fail(
                context,
                "CreateBotVersion",
                grpc.StatusCode.FAILED_PRECONDITION,
                f"bot {bot.name!r} is retired; register a new bot instead",
            )
        try:
            row = await self.accounts.create_version(
                bot.id, request.label, request.notes, request.provisional
            )
        except Conflict:
            await fail(
                context,
                "CreateBotVersion",
                grpc.StatusCode.ALREADY_EXISTS,
                f"bot {bot.name!r} already has a version {request.label!r}; choose another label",
            )
        except StorageError as exc:
            await fail(context, "CreateBotVersion", grpc.StatusCode.UNAVAILABLE, str(exc))
        return version_message(row)

    @checked
    async def SetBotAlwaysOn(
        self, request: account_pb2.SetBotAlwaysOnRequest, context: Context
    ) -> account_pb2.BotVersions:
        """Keep the bot running on the runners (or not) with no competition needing it."""
        method = "SetBotAlwaysOn"
        bot = await self.find_bot(context, method, request.bot)
        if bot.retired_at is not None and request.always_on:
            await fail(
                context,
                method,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"bot {bot.name!r} is retired; it can no longer play",
            )
        await storage(
            context, method, Runners(self.referee.db.pool).set_always_on(bot.id, request.always_on)
        )
        return await self._versions(context, method, request.bot)

    @checked
    async def ListBotVersions(
        self, request: account_pb2.BotRef, context: Context
    ) -> account_pb2.BotVersions:
        """The bot's versions, newest first."""
        return await self._versions(context, "ListBotVersions", request.bot)

    # -- helpers ---
    async def find_bot(self, context: Context, method: str, name: str) -> BotOwnership:
        """The bot called `name`, or the RPC ended NOT_FOUND (or UNAVAILABLE)."""
        arguments.bot_name("bot", name)
        bot = await storage(context, method, self.accounts.bot(name))
        if bot is None:
            await fail(context, method, grpc.StatusCode.NOT_FOUND, f"unknown bot {name!r}")
        return bot

    async def find_versioned_bot(self, context: Context, method: str, name: str) -> BotOwnership:
        """`find_bot`, but a version's own bot (NAME@LABEL) is FAILED_PRECONDITION: it always
        plays its one version, so versions are made on the bot itself."""
        bot = await self.find_bot(context, method, name)
        if SEPARATOR in bot.name:
            parent, _, label = bot.name.partition(SEPARATOR)
            await fail(
                context,
                method,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{bot.name} always plays version {label} of {parent}; make new versions of "
                f"{parent} itself",
            )
        return bot

    async def _versions(self, context: Context, method: str, name: str) -> account_pb2.BotVersions:
        bot = await self.find_bot(context, method, name)
        rows = await storage(context, method, self.accounts.versions(bot.id))
        return versions_message(bot, rows)

    async def _close_stream(self, bot_id: int, why: str) -> None:
        """End the bot's open stream, on this referee or on the one it is connected to."""
        cluster = self.referee.cluster
        if cluster is None:
            close_revoked(self.referee.hub, bot_id, why)
            return
        try:
            await cluster.routes.revoke(bot_id, why)
        except Exception as exc:  # Redis down: its token is refused at its next login anyway
            close_revoked(self.referee.hub, bot_id, why)
            log.warning(
                "could not reach the referee of bot %s to close its stream: %s", bot_id, exc
            )


async def storage(context: Context, method: str, call: Awaitable[T]) -> T:
    """The result of a storage call, or the RPC ended with UNAVAILABLE."""
    try:
        return await call
    except StorageError as exc:
        await fail(context, method, grpc.StatusCode.UNAVAILABLE, str(exc))


def check_name(field: str, value: str) -> str:
    """An account, key or version name: 1-64 letters, digits, '.', '_' or '-'."""
    if arguments.NAME_PATTERN.fullmatch(value) is None:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise arguments.InvalidArgument(
            field, f"a name is 1-64 letters, digits, '.', '_' or '-', got {shown!r}"
        )
    return value
