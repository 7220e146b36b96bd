"""`arena bot upload NAME FOLDER --run "python3 bot.py"`: make a folder a hosted version."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

import grpc

from arena.cli.owned_bots import KEY_HELP
from arena.cli.target import ADDRESS_HELP, account_metadata, address_of
from arena.hosting.archive import MAX_ARCHIVE_BYTES, MAX_UNPACKED_BYTES, MIB, PART_BYTES, pack
from arena.v1 import account_pb2, account_pb2_grpc

UPLOAD_HELP = (
    f"upload a folder as a new hosted version of your bot, run by the arena in a sandbox "
    f"(at most {MAX_UNPACKED_BYTES // MIB} MiB unpacked, {MAX_ARCHIVE_BYTES // MIB} MiB packed; "
    f"no links leaving the folder, no devices)"
)


async def _upload(args: argparse.Namespace) -> int:
    packed = pack(Path(args.folder))
    label = args.label or f"h-{packed.sha256.hex()[:12]}"
    metadata = account_metadata(args)
    async with grpc.aio.insecure_channel(address_of(args)) as channel:
        stub = account_pb2_grpc.AccountServiceStub(channel)
        for offset in range(0, len(packed.content), PART_BYTES):
            part = account_pb2.ArchivePart(
                bot=args.name,
                sha256=packed.sha256,
                offset=offset,
                data=packed.content[offset : offset + PART_BYTES],
            )
            await stub.UploadArchivePart(part, metadata=metadata, timeout=30)
        request = account_pb2.UploadBotVersionRequest(
            bot=args.name, label=label, notes=args.notes, sha256=packed.sha256, run=args.run
        )
        made = await stub.UploadBotVersion(request, metadata=metadata, timeout=60)
    print(
        f"{args.name} now plays as hosted version {made.label} "
        f"({made.archive_bytes} bytes, sha256 {made.archive_sha256[:12]}, run: {made.run})"
    )
    return 0


def add_command(bot_sub: Any) -> None:
    """Add `upload` to the `arena bot` subcommands."""
    upload = bot_sub.add_parser("upload", help=UPLOAD_HELP)
    upload.add_argument("name", help="the bot's name (yours, or any as admin)")
    upload.add_argument("folder", help="the folder holding the bot's program")
    upload.add_argument(
        "--run", required=True, help='the command that starts it in its folder: "python3 bot.py"'
    )
    upload.add_argument("--label", default="", help="the version's label (default: h-<sha256>)")
    upload.add_argument("--notes", default="", help="what changed (default: none)")
    upload.add_argument("--address", default="", help=ADDRESS_HELP)
    upload.add_argument("--key", default="", help=KEY_HELP)
    upload.set_defaults(func=lambda a: asyncio.run(_upload(a)))
