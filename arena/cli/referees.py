"""`arena referees`: the live referees of the arena, their load and whether they are draining."""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from arena.cli.target import add_target, open_channel
from arena.v1 import arena_pb2, arena_pb2_grpc


def add_commands(sub: Any) -> None:
    """Add `arena referees` to the `arena` parser."""
    referees = sub.add_parser(
        "referees", help="list the arena's live referees with the matches and bots each holds"
    )
    add_target(referees)
    referees.set_defaults(func=lambda a: asyncio.run(_list(a)))


async def _list(args: argparse.Namespace) -> int:
    async with open_channel(args) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        reply = await stub.ListReferees(arena_pb2.ListRefereesRequest(), timeout=10)
    print(table(list(reply.referees), time.time()))
    return 0


def table(referees: list[arena_pb2.Referee], now: float) -> str:
    """One line per referee, under a header."""
    lines = [f"{'referee':<16} {'address':<24} {'matches':>7} {'bots':>5}  state"]
    for r in referees:
        seen = max(0.0, now - r.seen_at.ToSeconds())
        state = "draining" if r.draining else "serving"
        lines.append(
            f"{r.name:<16} {r.address:<24} {r.hosted_matches:>7} {r.connected_bots:>5}  "
            f"{state} (seen {seen:.0f}s ago)"
        )
    if not referees:
        lines.append("(none live)")
    return "\n".join(lines)
