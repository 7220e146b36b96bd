"""`arena demo`: the whole job on throwaway embedded services, from bot processes to standings."""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc

from arena.cli.errors import positive
from arena.cli.options import add_per_decision, per_decision_clock
from arena.cli.tournaments import follow, leaderboard_lines, standings_lines
from arena.ops.bot_processes import BotProcesses
from arena.ops.ports import free_port
from arena.ops.stack import Stack, StackConfig
from arena.referee.clock import seconds
from arena.render import Paint
from arena.v1 import arena_pb2, arena_pb2_grpc


def demo(args: argparse.Namespace) -> int:
    """The whole job on embedded services: 16 bot processes play a 5-round Swiss of Hart."""
    paint = Paint()
    keep = bool(args.data_dir)
    data = Path(args.data_dir or tempfile.mkdtemp(prefix="arena-demo-")).resolve()
    config = StackConfig(
        data_dir=data,
        port=free_port(),
        referee_metrics_port=free_port(),
        worker_metrics_port=free_port(),
        beat_metrics_port=free_port(),
        runner_metrics_port=free_port(),
        concurrency=args.concurrency,
        per_decision=seconds(args.per_decision),
        logs_to_files=True,
        web_port=free_port(),
        web_metrics_port=free_port(),
    )
    print(paint.bold("Arena demo") + f": services in {data} (logs in {data / 'logs'})")
    started = time.monotonic()
    bots = BotProcesses(address=f"127.0.0.1:{config.port}")
    try:
        with Stack(config) as stack:
            print(
                f"  embedded Postgres and Redis, a referee on {stack.address}, a Celery worker "
                f"and beat are up ({time.monotonic() - started:.1f}s)"
            )
            os.environ.update(stack.environ())
            names = asyncio.run(_register(stack.address, args.bots))
            for name, token in names:
                strategy = "heuristic" if name.startswith("heuristic") else "random"
                bots.start(token, strategy, data / "logs" / f"bot-{name}.log")
            try:
                asyncio.run(_wait_bots(stack.address, len(names)))
            except TimeoutError as exc:
                raise SystemExit(f"arena demo: {exc}\n{bots.report()}") from None
            print(
                f"  {len(names)} bot processes connected over gRPC "
                f"({sum(n.startswith('heuristic') for n, _ in names)} heuristic, "
                f"{sum(n.startswith('random') for n, _ in names)} random)"
            )
            tournament_id = asyncio.run(_schedule(stack, [n for n, _ in names], args))
            print(
                f"  tournament {tournament_id} scheduled; Celery beat starts it in "
                f"{args.start_in:g}s\n"
            )
            final = asyncio.run(
                follow(stack.address, tournament_id, paint, timeout=seconds(args.timeout))
            )
            if not sys.stdout.isatty():
                print("\n".join(standings_lines(final, paint)))
            print()
            board = asyncio.run(_leaderboard(stack.address, "hart"))
            print("\n".join(leaderboard_lines(board, paint)))
            if args.keep:
                print(
                    f"\n  the tournament in a browser: {stack.web_url}tournaments/{tournament_id}"
                )
                _keep_running(stack)
            else:  # the pages stop with everything else: a link now would be a dead one
                print("\n  to see it in a browser, run `arena demo --keep`: it keeps the pages up")
            bots.stop()
            print(f"\ndone in {time.monotonic() - started:.1f}s; shutting everything down")
    finally:
        bots.stop()
        if not keep:
            shutil.rmtree(data, ignore_errors=True)
    return 0


def _keep_running(stack: Any) -> None:
    """`arena demo --keep`: leave the services and pages up until Ctrl-C or SIGTERM."""
    stop = {"now": False}

    def request_stop(*_: object) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    print(f"  services kept running (referee {stack.address}); Ctrl-C stops them", flush=True)
    while not stop["now"] and not stack.check():
        time.sleep(0.5)


async def _register(address: str, count: int) -> list[tuple[str, str]]:
    out = []
    async with grpc.aio.insecure_channel(address) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        for i in range(count):
            name = f"{'heuristic' if i % 2 == 0 else 'random'}-{i // 2 + 1:02d}"
            # As admin: many bots at once would exceed an anonymous caller's registration rate.
            reply = await api.RegisterBot(
                arena_pb2.RegisterBotRequest(name=name),
                metadata=(("authorization", f"Bearer {os.environ['ARENA_ADMIN_TOKEN']}"),),
            )
            out.append((name, reply.token))
    return out


async def _wait_bots(address: str, count: int, timeout: timedelta = timedelta(minutes=2)) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        deadline = time.monotonic() + timeout.total_seconds()
        while len((await api.ListBots(arena_pb2.ListBotsRequest())).bots) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"fewer than {count} bots connected after {timeout.total_seconds():g} s"
                )
            await asyncio.sleep(0.2)


async def _schedule(stack: Any, names: list[str], args: argparse.Namespace) -> int:
    request = arena_pb2.CreateTournamentRequest(
        name="demo swiss",
        game="hart",
        bots=names,
        table_size=4,
        rounds=args.rounds,
        clock=per_decision_clock(args),
        seed=args.seed,
    )
    request.starts_at.FromDatetime(datetime.now(UTC) + timedelta(seconds=args.start_in))
    metadata = (("authorization", f"Bearer {stack.admin_token}"),)
    async with grpc.aio.insecure_channel(stack.address) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        tournament = await api.CreateTournament(request, metadata=metadata)
    return int(tournament.tournament_id)


async def _leaderboard(address: str, game: str) -> arena_pb2.Leaderboard:
    async with grpc.aio.insecure_channel(address) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        return await api.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game=game, limit=20))


def add_commands(sub: Any) -> None:
    """Add the `demo` subcommand."""
    d = sub.add_parser("demo", help="the whole job: 16 bots play a Swiss of Hart")
    d.add_argument("--bots", type=positive(), default=16, help="bot processes (default: 16)")
    d.add_argument("--rounds", type=positive(), default=5, help="Swiss rounds (default: 5)")
    add_per_decision(d, 2.0)
    d.add_argument(
        "--concurrency",
        type=positive(),
        default=4,
        help="Celery worker processes (default: 4)",
    )
    d.add_argument(
        "--start-in",
        type=positive(float, zero=True),
        default=2.0,
        help="seconds until round 1 (default: 2)",
    )
    d.add_argument("--seed", type=int, default=2026, help="the tournament's seed (default: 2026)")
    d.add_argument(
        "--timeout",
        type=positive(float),
        default=900,
        help="give up after this many seconds (default: 900)",
    )
    d.add_argument(
        "--data-dir",
        default="",
        help="keep the services' files here (default: a temporary folder, removed at the end)",
    )
    d.add_argument(
        "--keep",
        action="store_true",
        help="keep the services and web pages running after the tournament, until Ctrl-C "
        "(default: stop them)",
    )
    d.set_defaults(func=demo)
