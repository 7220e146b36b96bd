"""`arena bot stats NAME`: a bot's statistics per game, from the GetBotStats RPC."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from arena.cli.errors import positive
from arena.cli.target import add_target, open_channel
from arena.v1 import arena_pb2, arena_pb2_grpc


def _ms(duration: Any) -> str:
    return f"{duration.ToTimedelta().total_seconds() * 1000:.0f} ms"


def stats_lines(stats: arena_pb2.BotStats) -> list[str]:
    """The readable report of a bot's statistics."""
    of = f", version {stats.version}" if stats.version else ""
    lines = [f"{stats.bot}{of} (registered {stats.registered_at.ToDatetime():%Y-%m-%d %H:%M} UTC)"]
    if not stats.games:
        lines.append("  no matches yet")
    for g in stats.games:
        rating = f"{g.rating:.0f} over {g.rated_games} rated" if g.HasField("rating") else "unrated"
        lines.append(f"{g.game}: rating {rating}")
        ranks = ", ".join(f"{rank}: {n}" for rank, n in sorted(g.ranks.items()))
        lines.append(
            f"  matches {g.matches}, wins {g.wins}, mean score {g.mean_score:.1f}"
            + (f"  (by rank {ranks})" if ranks else "")
        )
        if len(g.history) > 1:
            first, last = g.history[0], g.history[-1]
            lines.append(
                f"  rating {first.before:.0f} -> {last.after:.0f} over the last "
                f"{len(g.history)} rated matches"
            )
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(g.strikes_by_kind.items())) or "none"
        lines.append(
            f"  timeouts {g.timeouts}, strikes {g.strikes} ({kinds}), forfeits {g.forfeits}"
        )
        if g.HasField("think"):
            t = g.think
            lines.append(
                f"  think time over {t.decisions} decisions: p50 {_ms(t.p50)}, p90 {_ms(t.p90)}, "
                f"p99 {_ms(t.p99)}, max {_ms(t.max)}"
            )
        for p in g.problems:
            lines.append(
                f"  problem: match {p.match_id} decision {p.decision} (seat {p.seat}) "
                f"{p.kind}: {p.message}"
            )
    return lines


async def _stats(args: argparse.Namespace) -> int:
    # gRPC errors reach the shared one-line reporter (arena.cli.errors), like every command's.
    request = arena_pb2.GetBotStatsRequest(
        bot=args.name, game=args.game, problems=args.problems, version=args.version
    )
    async with open_channel(args) as channel:
        stats = await arena_pb2_grpc.ArenaServiceStub(channel).GetBotStats(request, timeout=30)
    for line in stats_lines(stats):
        print(line)
    return 0


def add_stats_command(bot_sub: Any) -> None:
    """Add `stats` to the `arena bot` subcommands."""
    stats = bot_sub.add_parser(
        "stats", help="a bot's results, rating history, strikes, think times and Problems"
    )
    stats.add_argument("name", help="the bot's name")
    stats.add_argument("--game", default="", help="only this game (default: every game)")
    stats.add_argument(
        "--version", default="", help="only the matches of this version, e.g. v2 (default: all)"
    )
    stats.add_argument(
        "--problems",
        type=positive(),
        default=10,
        help="Problems to list per game, at most 100 (default: 10)",
    )
    add_target(stats)
    stats.set_defaults(func=lambda a: asyncio.run(_stats(a)))
