"""The `arena` subcommands that run or talk to services: serve, db, bot, match, stored replays."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import grpc
from google.protobuf.duration_pb2 import Duration

import engines
from arena.clock import Clock, seconds
from arena.logs import configure_logging
from arena.render import Paint
from arena.services import data_dir, database_url
from arena.storage import Database
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2

DEFAULT_ADDRESS = os.environ.get("ARENA_ADDRESS", "localhost:50051")


def admin_token(given: str | None) -> str:
    """The admin token: the flag, ARENA_ADMIN_TOKEN, or the file `arena serve` wrote."""
    if given:
        return given
    if os.environ.get("ARENA_ADMIN_TOKEN"):
        return os.environ["ARENA_ADMIN_TOKEN"]
    path = data_dir() / "admin-token"
    if path.exists():
        return path.read_text().strip()
    raise SystemExit(
        "no admin token: pass --admin-token, set ARENA_ADMIN_TOKEN, or run "
        "`arena serve` here first (it writes var/admin-token)"
    )


# -- serve ----------------------------------------------------------------------------------------
async def _serve(args: argparse.Namespace) -> int:
    from prometheus_client import start_http_server

    from arena.referee.app import Referee, RefereeConfig
    from arena.referee.limits import Limits
    from arena.referee.server import create_server, serve_until_signalled

    token = args.admin_token or os.environ.get("ARENA_ADMIN_TOKEN", "")
    async with await Database.open(database_url()) as db:
        await db.migrate()
        config = RefereeConfig(
            host=args.name,
            admin_token=token,
            reconnect_grace=args.reconnect_grace,
            default_clock=Clock(per_decision=seconds(args.per_decision)),
            limits=Limits(open_registration=args.open_registration),
        )
        referee = Referee(db, config)
        if not token:
            path = data_dir() / "admin-token"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(referee.admin_token + "\n")
            path.chmod(0o600)
            print(f"admin token written to {path}", file=sys.stderr)
        running = await create_server(referee, f"[::]:{args.port}")
        if args.metrics_port >= 0:
            start_http_server(args.metrics_port)
        print(f"referee {args.name} listening on port {running.port}", file=sys.stderr)
        await serve_until_signalled(running)
    return 0


async def _migrate(args: argparse.Namespace) -> int:
    async with await Database.open(database_url()) as db:
        applied = await db.migrate()
    print(f"applied migrations {applied}" if applied else "schema is up to date")
    return 0


# -- bots -----------------------------------------------------------------------------------------
async def _register(args: argparse.Namespace) -> int:
    async with grpc.aio.insecure_channel(args.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        # An admin token, when there is one, registers even where registration is closed.
        token = args.admin_token or os.environ.get("ARENA_ADMIN_TOKEN", "")
        metadata = (("authorization", f"Bearer {token}"),) if token else None
        reply = await stub.RegisterBot(
            arena_pb2.RegisterBotRequest(name=args.name), metadata=metadata
        )
    if args.quiet:
        print(reply.token)
    else:
        print(f"registered bot {reply.name} (id {reply.bot_id})")
        print(f"token (shown once, keep it secret): {reply.token}")
    return 0


def _bot_run(args: argparse.Namespace) -> int:
    from arena.sdk import BotRejected, StrategyBot

    token = args.token or os.environ.get("ARENA_BOT_TOKEN", "")
    if not token:
        raise SystemExit("arena bot run needs --token or ARENA_BOT_TOKEN")
    try:
        StrategyBot(args.strategy, args.seed).run(args.address, token)
    except BotRejected as exc:
        print(f"arena: the referee refused this bot: {exc}", file=sys.stderr)
        return 3
    return 0


# -- matches --------------------------------------------------------------------------------------
async def _match(args: argparse.Namespace) -> int:
    options: dict[str, Any] = {}
    for pair in args.option:
        key, _, raw = pair.partition("=")
        try:
            options[key] = json.loads(raw)
        except ValueError:
            options[key] = raw
    request = arena_pb2.CreateMatchRequest(
        game=args.game,
        bots=[b.strip() for b in args.bots.split(",")],
        seed=args.seed,
        clock=common_pb2.Clock(per_decision=_duration(args.per_decision)),
    )
    request.options.update(options)
    metadata = (("authorization", f"Bearer {admin_token(args.admin_token)}"),)
    paint = Paint()
    async with grpc.aio.insecure_channel(args.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        match = await stub.CreateMatch(request, metadata=metadata)
        print(paint.bold(f"match {match.match_id}: {args.game} between {args.bots}"))
        final = None
        async for event in stub.WatchMatch(arena_pb2.WatchMatchRequest(match_id=match.match_id)):
            if event.HasField("final"):
                final = event.final
            elif event.decision >= 0 and (event.decision % args.every == 0):
                print(f"  decision {event.decision:>5}  {event.label}")
    if final is None:
        print("the match did not finish")
        return 1
    print(paint.bold(f"result ({common_pb2.Termination.Name(final.termination)[12:].lower()}):"))
    for seat in sorted(final.seats, key=lambda s: (s.rank, s.seat)):
        note = " (forfeited)" if seat.forfeited else ""
        print(
            f"  {seat.rank}. {paint.seat(seat.seat, seat.bot)}  score {seat.score:g}  "
            f"strikes {seat.strikes}{note}"
        )
    return 0


def _duration(value: float) -> Duration:
    out = Duration()
    out.FromTimedelta(seconds(value))
    return out


async def replay_stored_async(match_id: int) -> int:
    """Rebuild a stored match through the engine and confirm its final state."""
    async with await Database.open(database_url()) as db:
        record = await db.record(match_id)
        row = await db.match(match_id)
    rules = engines.get(record.game)
    final = engines.replay(rules, record)
    outcome = rules.outcome(final)
    print(
        f"match {match_id}: {len(record.moves)} decisions replayed through {rules.name} "
        f"v{rules.version}"
    )
    if row is not None and row.status.value == "finished" and outcome is not None:
        stored = [s.rank for s in row.seating]
        if not any(s.forfeited for s in row.seating) and stored != list(outcome.ranks):
            print(f"MISMATCH: stored ranks {stored}, replayed ranks {list(outcome.ranks)}")
            return 1
        print(f"the final state matches: ranks {list(outcome.ranks)}")
    elif outcome is None:
        print("the match is not over yet; the replayed prefix is consistent")
    return 0


def replay_stored(source: str) -> int:
    """`arena replay MATCH_ID`."""
    if not source.isdigit():
        raise SystemExit(f"{source!r} is neither a record file nor a match id")
    return asyncio.run(replay_stored_async(int(source)))


def add_commands(sub: Any) -> None:
    """Add the service subcommands to the `arena` parser."""
    from arena import tournament_cli

    tournament_cli.add_commands(sub)
    serve = sub.add_parser("serve", help="run a referee (gRPC, health, reflection, metrics)")
    serve.add_argument("--port", type=int, default=50051)
    serve.add_argument("--metrics-port", type=int, default=9101, help="-1 to disable")
    serve.add_argument("--name", default=os.environ.get("ARENA_REFEREE_NAME", "referee-0"))
    serve.add_argument("--admin-token", default="")
    serve.add_argument("--reconnect-grace", type=float, default=10.0)
    serve.add_argument(
        "--per-decision", type=float, default=5.0, help="default seconds per decision"
    )
    serve.add_argument(
        "--open-registration",
        action=argparse.BooleanOptionalAction,
        default=_env_flag("ARENA_OPEN_REGISTRATION", default=True),
        help="let anyone register bots (default, also ARENA_OPEN_REGISTRATION=1); "
        "with --no-open-registration only the admin token can",
    )
    serve.set_defaults(func=lambda a: _logged("referee", _serve(a)))

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser("migrate", help="apply pending migrations").set_defaults(
        func=lambda a: asyncio.run(_migrate(a))
    )

    bot = sub.add_parser("bot", help="register or run bots")
    bot_sub = bot.add_subparsers(dest="bot_command", required=True)
    reg = bot_sub.add_parser("register", help="register a bot and print its token")
    reg.add_argument("name")
    reg.add_argument("--address", default=DEFAULT_ADDRESS)
    reg.add_argument("--quiet", action="store_true", help="print only the token")
    reg.add_argument(
        "--admin-token", default="", help="needed when the arena's registration is closed"
    )
    reg.set_defaults(func=lambda a: asyncio.run(_register(a)))
    run = bot_sub.add_parser("run", help="run a reference bot process")
    run.add_argument("--strategy", default="heuristic", choices=["random", "heuristic"])
    run.add_argument("--token", default="")
    run.add_argument("--address", default=DEFAULT_ADDRESS)
    run.add_argument("--seed", type=int)
    run.set_defaults(func=lambda a: _logged_sync("bot", _bot_run, a))

    match = sub.add_parser("match", help="admin: run one match between connected bots")
    match.add_argument("--game", required=True, choices=engines.names())
    match.add_argument("--bots", required=True, help="bot names in seat order, comma-separated")
    match.add_argument("--seed", type=int, default=0)
    match.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    match.add_argument("--per-decision", type=float, default=5.0)
    match.add_argument("--address", default=DEFAULT_ADDRESS)
    match.add_argument("--admin-token", default="")
    match.add_argument("--every", type=int, default=25, help="print every Nth decision")
    match.set_defaults(func=lambda a: asyncio.run(_match(a)))


def _env_flag(name: str, *, default: bool) -> bool:
    """A yes/no environment variable; unset or empty means `default`."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise SystemExit(f"{name}={value!r}: use 1/0, true/false, yes/no or on/off")


def _logged(process: str, coroutine: Any) -> int:
    configure_logging(process)
    result: int = asyncio.run(coroutine)
    return result


def _logged_sync(process: str, func: Any, args: argparse.Namespace) -> int:
    configure_logging(process)
    result: int = func(args)
    return result
