"""`arena tournament withdraw|enter` and the tournament format and rating-system flags."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from arena.cli.errors import positive
from arena.cli.target import ADMIN_TOKEN_HELP, add_target, admin_metadata, open_channel
from arena.v1 import arena_pb2, arena_pb2_grpc

FORMATS = {
    "swiss": arena_pb2.TOURNAMENT_FORMAT_SWISS,
    "round-robin": arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
}
RATING_SYSTEMS = {
    "elo": arena_pb2.RATING_SYSTEM_ELO,
    "openskill": arena_pb2.RATING_SYSTEM_OPENSKILL,
}


async def change(args: argparse.Namespace) -> int:
    """Withdraw a bot from, or enter it late into, a tournament; print from which round."""
    request = arena_pb2.ChangeEntrantRequest(tournament_id=args.tournament_id, bot=args.bot)
    async with open_channel(args) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        if args.tournament_command == "withdraw":
            done = await api.WithdrawEntrant(request, metadata=admin_metadata(args), timeout=30)
        else:
            done = await api.EnterEntrant(request, metadata=admin_metadata(args), timeout=30)
    verb = "withdrawn from" if args.tournament_command == "withdraw" else "entered in"
    print(f"{done.bot} {verb} tournament {done.tournament_id} from round {done.round_no}")
    return 0


def add_commands(
    t_sub: Any, create: argparse.ArgumentParser, board: argparse.ArgumentParser
) -> None:
    """Add `withdraw` and `enter`, and the format/rating flags of `create` and `leaderboard`."""
    for name, text in (
        ("withdraw", "admin: withdraw a bot from the next unpaired round on"),
        ("enter", "admin: enter a bot late, from the next unpaired round on"),
    ):
        p = t_sub.add_parser(name, help=text)
        p.add_argument("tournament_id", type=positive(), help="the tournament's id")
        p.add_argument("bot", help="the bot's name")
        add_target(p)
        p.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)
        p.set_defaults(func=lambda a: asyncio.run(change(a)))
    add_format_flags(create)
    create.add_argument(
        "--forfeit-limit",
        type=positive(zero=True),
        default=0,
        help="withdraw a bot after this many forfeits (default: 0, never)",
    )
    add_rating_flag(board, "rank by this rating (default: elo)")


def add_format_flags(parser: argparse.ArgumentParser) -> None:
    """Add --format and --rating-system to a command that creates tournaments."""
    parser.add_argument(
        "--format",
        choices=sorted(FORMATS),
        default="swiss",
        help="how tables are formed (default: swiss)",
    )
    add_rating_flag(parser, "the rating the results update beside Elo (default: elo)")


def add_rating_flag(parser: argparse.ArgumentParser, text: str) -> None:
    """Add --rating-system with help `text`."""
    parser.add_argument("--rating-system", choices=sorted(RATING_SYSTEMS), default="elo", help=text)
