"""UploadArchivePart and UploadBotVersion: an owner sends a hosted bot's archive in pieces and
makes it the bot's playing version (runners then run it, arena/hosting/).

Only the bot's owner or an admin gets here (`permissions.RULES`). Every value is checked at the
door: the archive's SHA-256 is 32 bytes, a piece 1 byte to PART_BYTES, the command starts with a
program runners offer; the joined archive must hash to its SHA-256 and unpack safely
(`arena.hosting.archive.check`) before the version is made.
"""

from __future__ import annotations

import shlex

import grpc

from arena.hosting.archive import MAX_ARCHIVE_BYTES, PART_BYTES, ArchiveError, check
from arena.hosting.runtime import PROGRAMS
from arena.referee import arguments
from arena.referee.account_forms import version_message
from arena.referee.owned_bots import OwnedBots, check_name
from arena.referee.rpc import Context, checked, fail
from arena.storage.errors import Conflict, NotFound, StorageError
from arena.storage.hosted import Hosted, Mismatch, OutOfOrder
from arena.v1 import account_pb2

COMMAND_CHARS = 200
"""The longest command a hosted version may have."""


class HostedUploads:
    """The two RPCs of an upload."""

    def __init__(self, bots: OwnedBots) -> None:
        self.bots = bots
        self.hosted = Hosted(bots.referee.db.pool)

    @checked
    async def UploadArchivePart(
        self, request: account_pb2.ArchivePart, context: Context
    ) -> account_pb2.ArchivePartReceived:
        """Keep one piece of the archive, in order."""
        _sha256(request.sha256)
        arguments.integer("offset", request.offset, 0, MAX_ARCHIVE_BYTES)
        if not 1 <= len(request.data) <= PART_BYTES:
            raise arguments.InvalidArgument("data", f"a piece is 1 to {PART_BYTES} bytes")
        bot = await self.bots.find_versioned_bot(context, "UploadArchivePart", request.bot)
        try:
            received = await self.hosted.add_part(
                bot.id, request.sha256, request.offset, request.data, MAX_ARCHIVE_BYTES
            )
        except OutOfOrder as exc:
            await fail(context, "UploadArchivePart", grpc.StatusCode.OUT_OF_RANGE, str(exc))
        except Conflict as exc:
            await fail(context, "UploadArchivePart", grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        except StorageError as exc:
            await fail(context, "UploadArchivePart", grpc.StatusCode.UNAVAILABLE, str(exc))
        return account_pb2.ArchivePartReceived(received=received)

    @checked
    async def UploadBotVersion(
        self, request: account_pb2.UploadBotVersionRequest, context: Context
    ) -> account_pb2.BotVersion:
        """Make the uploaded archive the bot's new, hosted, playing version."""
        check_name("label", request.label)
        arguments.text("notes", request.notes, required=False)
        _sha256(request.sha256)
        _command(request.run)
        method = "UploadBotVersion"
        bot = await self.bots.find_versioned_bot(context, method, request.bot)
        if bot.retired_at is not None:
            await fail(
                context,
                method,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"bot {bot.name!r} is retired; register a new bot instead",
            )
        call = self.hosted.create_version(
            bot.id, request.label, request.notes, request.sha256, request.run, check
        )
        try:
            row = await call
        except NotFound as exc:
            await fail(context, method, grpc.StatusCode.NOT_FOUND, str(exc))
        except ArchiveError as exc:
            await fail(context, method, grpc.StatusCode.INVALID_ARGUMENT, f"archive: {exc}")
        except Mismatch as exc:
            await fail(context, method, grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        except Conflict:
            why = f"bot {bot.name!r} already has a version {request.label!r}; choose another label"
            await fail(context, method, grpc.StatusCode.ALREADY_EXISTS, why)
        except StorageError as exc:
            await fail(context, method, grpc.StatusCode.UNAVAILABLE, str(exc))
        return version_message(row)


def _sha256(value: bytes) -> bytes:
    """An archive's SHA-256: 32 bytes."""
    if len(value) != 32:
        raise arguments.InvalidArgument("sha256", "an archive's SHA-256 is 32 bytes")
    return value


def _command(value: str) -> list[str]:
    """A hosted bot's command: printable, parseable, starting with a program runners offer."""
    arguments.text("run", value)
    if len(value) > COMMAND_CHARS:
        raise arguments.InvalidArgument("run", f"at most {COMMAND_CHARS} characters")
    try:
        words = shlex.split(value)
    except ValueError as exc:
        raise arguments.InvalidArgument("run", f"does not parse: {exc}") from None
    if not words or words[0] not in PROGRAMS:
        raise arguments.InvalidArgument("run", f"must start with one of: {', '.join(PROGRAMS)}")
    return words
