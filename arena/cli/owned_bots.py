"""`arena bot rotate|retire|version|versions|always-on NAME`: what an account does to its own
bots."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from arena.cli.target import account_metadata, add_target, open_channel
from arena.v1 import account_pb2, account_pb2_grpc

KEY_HELP = "the owner's API key (default: ARENA_API_KEY, else the key `arena login` stored)"


async def _call(args: argparse.Namespace, method: str, request: Any, key: bool = True) -> Any:
    metadata = account_metadata(args) if key else None
    async with open_channel(args) as channel:
        stub = account_pb2_grpc.AccountServiceStub(channel)
        return await getattr(stub, method)(request, metadata=metadata, timeout=30)


async def _rotate(args: argparse.Namespace) -> int:
    done = await _call(args, "RotateBotToken", account_pb2.BotRef(bot=args.name))
    print(f"new token of {done.bot} (shown once, keep it secret): {done.token}")
    print("the old token is refused from now on; restart the bot with the new one")
    return 0


async def _retire(args: argparse.Namespace) -> int:
    done = await _call(args, "RetireBot", account_pb2.BotRef(bot=args.name))
    print(f"retired {done.bot}: it leaves the leaderboards and plays no more; its history stays")
    return 0


async def _version(args: argparse.Namespace) -> int:
    request = account_pb2.CreateBotVersionRequest(
        bot=args.name, label=args.label, notes=args.notes, provisional=args.provisional
    )
    made = await _call(args, "CreateBotVersion", request)
    kind = "provisional " if made.provisional else ""
    print(f"{args.name} now plays as {kind}version {made.label}")
    return 0


async def _always_on(args: argparse.Namespace) -> int:
    on = args.state == "on"
    request = account_pb2.SetBotAlwaysOnRequest(bot=args.name, always_on=on)
    done = await _call(args, "SetBotAlwaysOn", request)
    hosted = bool(done.versions) and done.versions[0].hosted
    if not on:
        print(f"{done.bot} runs on the arena's runners only while a competition needs it")
    elif hosted:
        print(f"{done.bot} is always on: the arena's runners keep its hosted version running")
    else:
        print(
            f"{done.bot} is always on, but its playing version is not hosted: nothing runs until "
            f"you `arena bot upload` one"
        )
    return 0


async def _versions(args: argparse.Namespace) -> int:
    listed = await _call(args, "ListBotVersions", account_pb2.BotRef(bot=args.name), key=False)
    owner = listed.owner or "no account"
    retired = " (retired)" if listed.HasField("retired_at") else ""
    running = f", running on {listed.runner}" if listed.runner else ""
    always = ", always on" if listed.always_on else ""
    print(f"{listed.bot}{retired}, owned by {owner}{always}{running}")
    for index, v in enumerate(listed.versions):
        flag = " provisional" if v.provisional else ""
        active = "*" if index == 0 and not listed.HasField("retired_at") else " "
        where = f"hosted: {v.run} ({v.archive_bytes} bytes)" if v.hosted else "author-run"
        when = v.created_at.ToDatetime()
        print(
            f"{active} {v.label:<14} {when:%Y-%m-%d} {v.matches:>5} matches{flag}  {where}  "
            f"{v.notes}".rstrip()
        )
    print("(* the active version: the one that plays)")
    return 0


def add_commands(bot_sub: Any) -> None:
    """Add `rotate`, `retire`, `version`, `versions` and `always-on` to the `arena bot`
    subcommands."""
    for name, func, text in (
        ("rotate", _rotate, "give your bot a new token (the old one stops working at once)"),
        ("retire", _retire, "retire your bot: off the leaderboards and new pairings"),
    ):
        cmd = bot_sub.add_parser(name, help=text)
        cmd.add_argument("name", help="the bot's name")
        add_target(cmd)
        cmd.add_argument("--key", default="", help=KEY_HELP)
        cmd.set_defaults(func=lambda a, f=func: asyncio.run(f(a)))
    version = bot_sub.add_parser("version", help="start a new version of your bot")
    version.add_argument("name", help="the bot's name")
    version.add_argument("--label", required=True, help="the version's label, e.g. v2")
    version.add_argument("--notes", default="", help="what changed (default: none)")
    version.add_argument(
        "--provisional",
        action="store_true",
        help="its first rated games use the provisional K again",
    )
    add_target(version)
    version.add_argument("--key", default="", help=KEY_HELP)
    version.set_defaults(func=lambda a: asyncio.run(_version(a)))
    always = bot_sub.add_parser(
        "always-on",
        help="keep your bot's hosted version running on the arena's runners (on), or only while "
        "a tournament or ladder needs it (off)",
    )
    always.add_argument("name", help="the bot's name")
    always.add_argument("state", choices=("on", "off"), help="on or off")
    add_target(always)
    always.add_argument("--key", default="", help=KEY_HELP)
    always.set_defaults(func=lambda a: asyncio.run(_always_on(a)))
    versions = bot_sub.add_parser("versions", help="a bot's versions and owner")
    versions.add_argument("name", help="the bot's name")
    add_target(versions)
    versions.set_defaults(func=lambda a: asyncio.run(_versions(a)))
