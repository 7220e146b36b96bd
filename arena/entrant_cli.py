"""`arena tournament withdraw|enter` and the tournament format and rating-system flags."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

import grpc

from arena.v1 import arena_pb2, arena_pb2_grpc

FORMATS = {
    "swiss": arena_pb2.TOURNAMENT_FORMAT_SWISS,
    "round-robin": arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
}
RATING_SYSTEMS = {
    "elo": arena_pb2.RATING_SYSTEM_ELO,
    "openskill": arena_pb2.RATING_SYSTEM_OPENSKILL,
}


def address(args: argparse.Namespace) -> str:
    """Where the referee listens: --address, ARENA_ADDRESS or localhost:50051."""
    return str(args.address or os.environ.get("ARENA_ADDRESS", "localhost:50051"))


def admin(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The admin credentials metadata."""
    # Imported here: service_cli pulls in the storage layer, which `arena play` does not need.
    from arena.service_cli import admin_token

    return (("authorization", f"Bearer {admin_token(getattr(args, 'admin_token', ''))}"),)


async def change(args: argparse.Namespace) -> int:
    """Withdraw a bot from, or enter it late into, a tournament; print from which round."""
    request = arena_pb2.ChangeEntrantRequest(tournament_id=args.tournament_id, bot=args.bot)
    try:
        async with grpc.aio.insecure_channel(address(args)) as channel:
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            if args.tournament_command == "withdraw":
                done = await api.WithdrawEntrant(request, metadata=admin(args), timeout=30)
            else:
                done = await api.EnterEntrant(request, metadata=admin(args), timeout=30)
    except grpc.aio.AioRpcError as exc:
        print(f"arena: {exc.details() or exc.code().name}", file=sys.stderr)
        return 1
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
        p.add_argument("tournament_id", type=int)
        p.add_argument("bot", help="the bot's name")
        p.add_argument("--address", default="")
        p.add_argument("--admin-token", default="")
        p.set_defaults(func=lambda a: asyncio.run(change(a)))
    create.add_argument("--format", choices=sorted(FORMATS), default="swiss")
    create.add_argument("--rating-system", choices=sorted(RATING_SYSTEMS), default="elo")
    create.add_argument(
        "--forfeit-limit", type=int, default=0, help="withdraw a bot after this many forfeits"
    )
    board.add_argument("--rating-system", choices=sorted(RATING_SYSTEMS), default="elo")
