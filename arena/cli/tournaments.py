"""`arena tournament create|list|show`, `arena leaderboard`, `arena up` and `arena demo`."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from arena.cli import entrants as entrant_cli
from arena.cli import schedules as schedule_cli
from arena.cli.errors import positive
from arena.cli.options import add_per_decision, game_name, per_decision_clock, split_names
from arena.cli.target import (
    ADMIN_TOKEN_HELP,
    add_target,
    address_of,
    admin_metadata,
    client_tls,
    open_channel,
)
from arena.render import Paint
from arena.sdk.tls import PLAINTEXT, ClientTls
from arena.v1 import arena_pb2, arena_pb2_grpc

STATUS = {v: k[18:].lower() for k, v in arena_pb2.TournamentStatus.items()}


# -- tournaments ----------------------------------------------------------------------------------
async def create(args: argparse.Namespace) -> int:
    """Schedule a tournament and print its id."""
    request = arena_pb2.CreateTournamentRequest(
        name=args.name,
        game=args.game,
        bots=split_names(args.bots),
        table_size=args.table_size,
        rounds=args.rounds,
        seed=args.seed,
        clock=per_decision_clock(args),
        format=entrant_cli.FORMATS[args.format],
        rating_system=entrant_cli.RATING_SYSTEMS[args.rating_system],
        forfeit_limit=args.forfeit_limit,
    )
    request.starts_at.FromDatetime(datetime.now(UTC) + timedelta(seconds=args.start_in))
    async with open_channel(args) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        tournament = await api.CreateTournament(request, metadata=admin_metadata(args))
    if args.quiet:
        print(tournament.tournament_id)
    else:
        print(
            f"tournament {tournament.tournament_id} scheduled: {tournament.rounds} rounds of "
            f"{args.game} at {args.table_size}-seat tables, {len(request.bots)} bots, starting "
            f"{tournament.starts_at.ToDatetime():%H:%M:%S} UTC"
        )
    return 0


async def list_all(args: argparse.Namespace) -> int:
    """Print the tournaments."""
    async with open_channel(args) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        reply = await api.ListTournaments(arena_pb2.ListTournamentsRequest(limit=args.limit))
    if not reply.tournaments:
        print("no tournaments")
    for t in reply.tournaments:
        print(
            f"{t.tournament_id:>5}  {t.name:<24} {t.game:<9} {STATUS[t.status]:<10} "
            f"round {t.current_round}/{t.rounds}"
        )
    return 0


def standings_lines(t: arena_pb2.Tournament, paint: Paint) -> list[str]:
    """The tournament's header, progress bar and standings table."""
    width = 30
    rounds_done = t.current_round - 1 + (t.tables_finished / t.tables if t.tables else 0)
    if t.status == arena_pb2.TOURNAMENT_STATUS_FINISHED:
        rounds_done = t.rounds
    filled = int(width * rounds_done / max(1, t.rounds))
    bar = "#" * filled + "-" * (width - filled)
    lines = [
        paint.bold(f"Tournament {t.tournament_id}: {t.name} ({t.game}, {t.table_size} seats)"),
        f"  [{bar}] round {max(t.current_round, 0)}/{t.rounds}, "
        f"tables {t.tables_finished}/{t.tables}  {STATUS[t.status]}",
        f"  {'#':>3} {'bot':<16} {'score':>6} {'buchholz':>9} {'rating':>7} {'byes':>4}"
        f" {'played':>6}",
    ]
    for s in t.standings:
        lines.append(
            f"  {s.position:>3} {s.bot:<16} {s.score:>6.2f} {s.tiebreak:>9.2f} "
            f"{s.rating:>7.1f} {s.byes:>4} {s.rounds_played:>6}"
        )
    return lines


async def follow(
    address: str,
    tournament_id: int,
    paint: Paint,
    timeout: timedelta = timedelta(hours=1),
    tls: ClientTls = PLAINTEXT,
) -> arena_pb2.Tournament:
    """Show progress until the tournament finishes; return its final state."""
    live = sys.stdout.isatty()
    shown: tuple[Any, ...] = ()
    drawn = 0
    deadline = time.monotonic() + timeout.total_seconds()
    async with tls.aio_channel(address) as grpc_channel:
        api = arena_pb2_grpc.ArenaServiceStub(grpc_channel)
        while True:
            t = await api.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=tournament_id))
            state = (t.status, t.current_round, t.tables_finished, t.tables)
            if state != shown:
                shown = state
                if live:
                    lines = standings_lines(t, paint)
                    sys.stdout.write(f"\x1b[{drawn}F\x1b[J" if drawn else "")
                    sys.stdout.write("\n".join(lines) + "\n")
                    sys.stdout.flush()
                    drawn = len(lines)
                else:
                    print(
                        f"round {t.current_round}/{t.rounds}: tables {t.tables_finished}/"
                        f"{t.tables} finished ({STATUS[t.status]})",
                        flush=True,
                    )
            if t.status in (
                arena_pb2.TOURNAMENT_STATUS_FINISHED,
                arena_pb2.TOURNAMENT_STATUS_CANCELLED,
            ):
                return t
            if time.monotonic() > deadline:
                raise TimeoutError(f"tournament {tournament_id} still running after {timeout}s")
            await asyncio.sleep(0.5)


async def show(args: argparse.Namespace) -> int:
    """Print a tournament's standings (following it live with --follow)."""
    paint = Paint()
    if args.follow:
        t = await follow(address_of(args), args.tournament_id, paint, tls=client_tls(args))
        if not sys.stdout.isatty():
            print("\n".join(standings_lines(t, paint)))
        return 0
    async with open_channel(args) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        t = await api.GetTournament(
            arena_pb2.GetTournamentRequest(tournament_id=args.tournament_id)
        )
    print("\n".join(standings_lines(t, paint)))
    return 0


async def leaderboard(args: argparse.Namespace) -> int:
    """Print a game's Elo leaderboard."""
    async with open_channel(args) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        board = await api.GetLeaderboard(
            arena_pb2.GetLeaderboardRequest(
                game=args.game,
                limit=args.limit,
                rating_system=entrant_cli.RATING_SYSTEMS[args.rating_system],
            )
        )
    print("\n".join(leaderboard_lines(board, Paint())))
    return 0


def leaderboard_lines(board: arena_pb2.Leaderboard, paint: Paint) -> list[str]:
    """A leaderboard as a table."""
    if board.rating_system == arena_pb2.RATING_SYSTEM_OPENSKILL:
        lines = [
            paint.bold(f"OpenSkill leaderboard: {board.game} (mu - 3 sigma)"),
            f"  {'#':>3} {'bot':<16} {'rating':>7} {'mu':>6} {'sigma':>6} {'games':>5}",
        ]
        for e in board.entries:
            lines.append(
                f"  {e.position:>3} {e.bot:<16} {e.rating:>7.2f} {e.mu:>6.2f} {e.sigma:>6.2f}"
                f" {e.games:>5}"
            )
        return lines
    lines = [
        paint.bold(f"Elo leaderboard: {board.game}"),
        f"  {'#':>3} {'bot':<16} {'rating':>7} {'games':>5}",
    ]
    for e in board.entries:
        lines.append(f"  {e.position:>3} {e.bot:<16} {e.rating:>7.1f} {e.games:>5}")
    if not board.entries:
        lines.append("  (no rated matches yet)")
    return lines


def add_commands(sub: Any) -> None:
    """Add the tournament, leaderboard, entrant, schedule and ladder subcommands."""
    tournament = sub.add_parser("tournament", help="create, list and show Swiss tournaments")
    t_sub = tournament.add_subparsers(dest="tournament_command", required=True)
    c = t_sub.add_parser("create", help="admin: schedule a Swiss tournament")
    c.add_argument("--game", required=True, type=game_name, help="the game")
    c.add_argument("--bots", required=True, help="registered entrants by name, comma-separated")
    c.add_argument("--name", default="", help="a display name (default: none)")
    c.add_argument("--table-size", type=positive(), default=4, help="seats per table (default: 4)")
    c.add_argument(
        "--rounds",
        type=positive(zero=True),
        default=0,
        help="rounds; 0 chooses from the field size (default: 0)",
    )
    add_per_decision(c)
    c.add_argument(
        "--start-in",
        type=positive(float, zero=True),
        default=0.0,
        help="seconds from now until round 1 (default: 0)",
    )
    c.add_argument("--seed", type=int, default=0, help="seed of pairings and matches (default: 0)")
    c.add_argument("--quiet", action="store_true", help="print only the id")
    add_target(c)
    c.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)
    c.set_defaults(func=lambda a: asyncio.run(create(a)))
    ls = t_sub.add_parser("list", help="list tournaments")
    ls.add_argument("--limit", type=positive(), default=50, help="at most this many (default: 50)")
    add_target(ls)
    ls.set_defaults(func=lambda a: asyncio.run(list_all(a)))
    sh = t_sub.add_parser("show", help="standings and progress of a tournament")
    sh.add_argument("tournament_id", type=positive(), help="the id `tournament create` printed")
    sh.add_argument("--follow", action="store_true", help="follow it live until it finishes")
    add_target(sh)
    sh.set_defaults(func=lambda a: asyncio.run(show(a)))

    lb = sub.add_parser("leaderboard", help="the Elo leaderboard of a game")
    lb.add_argument("--game", required=True, type=game_name, help="the game")
    lb.add_argument(
        "--limit", type=positive(), default=20, help="at most this many bots (default: 20)"
    )
    add_target(lb)
    lb.set_defaults(func=lambda a: asyncio.run(leaderboard(a)))

    entrant_cli.add_commands(t_sub, c, lb)
    schedule_cli.add_commands(sub)
    schedule_cli.add_ladder_commands(sub)
