"""The `arena` subcommands that run or talk to services: serve, db, bot, match, stored replays."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from datetime import timedelta
from typing import Any

import grpc
from google.protobuf.duration_pb2 import Duration
from prometheus_client import start_http_server

import engines
from arena.cli import botstats as botstats_cli
from arena.cli import demo as demo_cli
from arena.cli import tournaments as tournament_cli
from arena.cli import up as up_cli
from arena.cli.bot_report import BotReport
from arena.cli.bot_trial import Trial, bot_command
from arena.cli.errors import CliError, ExitCode, positive
from arena.cli.options import parse_options
from arena.cli.target import ADDRESS_HELP, ADMIN_TOKEN_HELP, address_of, admin_metadata
from arena.ops import home
from arena.ops.logs import configure_logging
from arena.ops.services import data_dir, database_url
from arena.referee.app import Referee, RefereeConfig
from arena.referee.auth import write_secret
from arena.referee.clock import Clock, seconds
from arena.referee.limits import Limits
from arena.referee.server import create_server, serve_until_signalled
from arena.render import Paint, final_lines, step_lines
from arena.sdk import BotRejected, BotReplaced, StrategyBot
from arena.storage import Database
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2
from arena.web import cli as web_cli
from engines import Record
from engines.replay import driver_for, steps


def existing_database_url() -> str:
    """ARENA_DATABASE_URL, or the embedded database in the data directory; never a new one."""
    if os.environ.get("ARENA_DATABASE_URL"):
        return os.environ["ARENA_DATABASE_URL"]
    folder = data_dir()
    running = home.StackInfo.read(folder)
    if running is not None and running.database_url:
        return running.database_url
    if not home.has_embedded_database(folder):
        raise CliError(
            f"no database: ARENA_DATABASE_URL is unset and {folder} holds none",
            "set ARENA_DATABASE_URL, set ARENA_HOME to the folder `arena up` used, or run "
            "`arena up` once",
            ExitCode.UNAVAILABLE,
        )
    return database_url()


# -- serve ----------------------------------------------------------------------------------------
async def _serve(args: argparse.Namespace) -> int:
    token = args.admin_token or os.environ.get("ARENA_ADMIN_TOKEN", "")
    token_file = data_dir() / "admin-token"
    if not token and token_file.exists():  # a restart keeps the token scripts already use
        token = token_file.read_text().strip()
    async with await Database.open(database_url()) as db:
        await db.migrate()
        config = RefereeConfig(
            host=args.name,
            admin_token=token,
            reconnect_grace=args.reconnect_grace,
            default_clock=Clock(per_decision=seconds(args.per_decision)),
            spectator_delay=seconds(args.spectator_delay),
            limits=Limits(open_registration=args.open_registration),
        )
        referee = Referee(db, config)
        try:
            running = await create_server(referee, f"[::]:{args.port}")
        except RuntimeError as exc:  # grpc reports a port it cannot bind this way
            raise CliError(
                f"cannot listen on port {args.port}: {str(exc).split(';')[0]}",
                "another program (or another referee) uses it; stop it or pass --port",
                ExitCode.UNAVAILABLE,
            ) from None
        if not token:  # only once listening: a second `serve` must not replace a working token
            token_file.parent.mkdir(parents=True, exist_ok=True)
            write_secret(token_file, referee.admin_token + "\n")
            print(f"admin token written to {token_file}", file=sys.stderr)
        if args.metrics_port >= 0:
            start_http_server(args.metrics_port)
        print(f"referee {args.name} listening on port {running.port}", file=sys.stderr)
        await serve_until_signalled(running)
    return 0


async def _migrate(args: argparse.Namespace) -> int:
    async with await Database.open(existing_database_url()) as db:
        applied = await db.migrate()
    print(f"applied migrations {applied}" if applied else "schema is up to date")
    return 0


# -- bots -----------------------------------------------------------------------------------------
async def _register(args: argparse.Namespace) -> int:
    async with grpc.aio.insecure_channel(address_of(args)) as channel:
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
    token = args.token or os.environ.get("ARENA_BOT_TOKEN", "")
    if not token:
        raise CliError(
            "arena bot run needs a bot token",
            "pass --token or set ARENA_BOT_TOKEN (`arena bot register NAME` prints one)",
        )
    address = address_of(args)
    bot = StrategyBot(args.strategy, args.seed)
    report = args.report == "lines" or (args.report == "auto" and sys.stdout.isatty())
    if report:
        bot.report = BotReport(sys.stdout, timedelta(seconds=args.summary_every))
        # The report says what the SDK's info lines would (connected, ...): keep warnings only.
        logging.getLogger("arena.sdk").setLevel(logging.WARNING)
    try:
        bot.run(address, token)
    except BotReplaced as exc:
        raise CliError(
            f"stopped: {exc}",
            "another process uses this bot's token; stop one of them",
            ExitCode.REFUSED,
        ) from None
    except BotRejected as exc:
        raise CliError(
            f"the referee at {address} refused this bot: {exc}",
            "check the token (`arena bot register` prints it once)",
            ExitCode.REFUSED,
        ) from None
    finally:
        if bot.report is not None:
            bot.report.stopped("stopped")
    return 0


def _bot_test(args: argparse.Namespace) -> int:
    trial = Trial(
        argv=bot_command(args.file, args.cmd),
        game=args.game,
        matches=args.matches,
        seats=args.seats or 0,
        opponents=args.opponents,
        per_decision=args.per_decision,
        seed=args.seed,
        out=sys.stdout,
    )
    report = trial.run()
    return ExitCode.FAILED if report.faults or report.forfeits else ExitCode.OK


# -- matches --------------------------------------------------------------------------------------
async def _match(args: argparse.Namespace) -> int:
    options = parse_options(args.option)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    rules = engines.get(args.game)
    if len(bots) not in rules.seat_counts:
        raise CliError(
            f"{rules.name} is played by {min(rules.seat_counts)}-{max(rules.seat_counts)} seats, "
            f"not {len(bots)}",
            "name one bot per seat in --bots",
        )
    rules.resolve_options(options)
    request = arena_pb2.CreateMatchRequest(
        game=args.game,
        bots=bots,
        seed=args.seed,
        clock=common_pb2.Clock(per_decision=_duration(args.per_decision)),
    )
    request.options.update(options)
    metadata = admin_metadata(args)
    paint = Paint()
    async with grpc.aio.insecure_channel(address_of(args)) as channel:
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
        return ExitCode.FAILED
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


async def _fetch_replay(address: str, match_id: int) -> arena_pb2.Replay:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        return await stub.GetReplay(arena_pb2.GetReplayRequest(match_id=match_id))


def replay_stored(args: argparse.Namespace) -> int:
    """`arena replay MATCH_ID`: fetch the record from the arena, replay it here, show its log."""
    match_id = int(args.source)
    reply = asyncio.run(_fetch_replay(address_of(args), match_id))
    record = Record.from_json(json.loads(reply.record_json))
    rules = engines.get(record.game)
    paint = Paint()
    names = {s.seat: s.bot for s in reply.match.seats}
    print(paint.bold(f"match {match_id}: {rules.title}, {record.seats} seats, seed {record.seed}"))
    for seat in range(record.seats):
        print(f"  {paint.seat(seat)} played {names.get(seat, '?')}")
    final = driver_for(rules, record).state  # the setup, for a record with no moves
    for step in steps(rules, record):
        if not args.quiet:
            lines = step_lines(
                rules, step.before, step.decision, step.joint, step.after, paint, step.events
            )
            print("\n".join(lines))
        final = step.after
    outcome = rules.outcome(final)
    print(
        f"match {match_id}: {len(record.moves)} decisions replayed through {rules.name} "
        f"v{rules.version}"
    )
    if outcome is None:
        print("the match is not over yet; the replayed prefix is consistent")
        return 0
    for line in final_lines(rules, final, outcome, paint):
        print(line)
    if reply.match.status == common_pb2.MATCH_STATUS_FINISHED:
        stored = [s.rank for s in sorted(reply.match.seats, key=lambda s: s.seat)]
        forfeits = any(s.forfeited for s in reply.match.seats)
        if not forfeits and stored != list(outcome.ranks):
            print(f"MISMATCH: stored ranks {stored}, replayed ranks {list(outcome.ranks)}")
            return ExitCode.FAILED
        print(f"the final state matches the stored result: ranks {list(outcome.ranks)}")
    return 0


def add_commands(sub: Any) -> None:
    """Add the service subcommands to the `arena` parser."""
    tournament_cli.add_commands(sub)
    up_cli.add_commands(sub)
    demo_cli.add_commands(sub)
    serve = sub.add_parser("serve", help="run a referee (gRPC, health, reflection, metrics)")
    serve.add_argument("--port", type=int, default=50051, help="gRPC port (default: 50051)")
    serve.add_argument(
        "--metrics-port",
        type=int,
        default=9101,
        help="Prometheus /metrics port, -1 to disable (default: 9101)",
    )
    serve.add_argument(
        "--name",
        default=os.environ.get("ARENA_REFEREE_NAME", "referee-0"),
        help="this referee's name in logs and leases (default: ARENA_REFEREE_NAME or referee-0)",
    )
    serve.add_argument(
        "--admin-token",
        default="",
        help="the admin token (default: ARENA_ADMIN_TOKEN, else the one in "
        "ARENA_HOME/admin-token, else a new one written there)",
    )
    serve.add_argument(
        "--reconnect-grace",
        type=positive(float, zero=True),
        default=10.0,
        help="seconds a dropped bot has to reconnect before its decisions time out (default: 10)",
    )
    serve.add_argument(
        "--per-decision",
        type=positive(float),
        default=5.0,
        help="default seconds per decision (default: 5)",
    )
    serve.add_argument(
        "--spectator-delay",
        type=float,
        default=os.environ.get("ARENA_SPECTATOR_DELAY", "0"),  # argparse applies `type` to it
        help="least seconds WatchMatch lags a running match; set it for public arenas "
        "(default: ARENA_SPECTATOR_DELAY, else 0)",
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
    db_sub.add_parser(
        "migrate",
        help="apply pending migrations to ARENA_DATABASE_URL (or the embedded database in "
        "ARENA_HOME)",
    ).set_defaults(func=lambda a: asyncio.run(_migrate(a)))

    bot = sub.add_parser("bot", help="register or run bots")
    bot_sub = bot.add_subparsers(dest="bot_command", required=True)
    reg = bot_sub.add_parser("register", help="register a bot and print its token")
    reg.add_argument("name", help="1-64 letters, digits, '.', '_' or '-'")
    reg.add_argument("--address", default="", help=ADDRESS_HELP)
    reg.add_argument("--quiet", action="store_true", help="print only the token")
    reg.add_argument(
        "--admin-token",
        default="",
        help="needed only when the arena's registration is closed (default: none)",
    )
    reg.set_defaults(func=lambda a: asyncio.run(_register(a)))
    run = bot_sub.add_parser("run", help="run a reference bot process")
    run.add_argument(
        "--strategy",
        default="heuristic",
        choices=["random", "heuristic"],
        help="how it plays (default: heuristic; random where a game has no heuristic)",
    )
    run.add_argument("--token", default="", help="the bot's token (default: ARENA_BOT_TOKEN)")
    run.add_argument("--address", default="", help=ADDRESS_HELP)
    run.add_argument("--seed", type=int, help="seed of its random choices (default: random)")
    run.add_argument(
        "--report",
        choices=["auto", "lines", "none"],
        default="auto",
        help="print a line per match start/end, Problem and a periodic summary on stdout: "
        "lines, none, or auto = on a terminal (default: auto)",
    )
    run.add_argument(
        "--summary-every",
        type=positive(float),
        default=60.0,
        help="seconds between summary lines (default: 60)",
    )
    run.set_defaults(func=lambda a: _logged_sync("bot", _bot_run, a))
    botstats_cli.add_stats_command(bot_sub)
    trial = bot_sub.add_parser(
        "test",
        help="play your bot program against the reference bots in a throwaway local arena and "
        "report every illegal or late answer",
        description="Starts a referee on a free loopback port over a throwaway database, runs "
        "your program with ARENA_ADDRESS and ARENA_BOT_TOKEN in its environment, and plays "
        "--matches matches against reference bots, your seat rotating.",
    )
    trial.add_argument(
        "file",
        nargs="?",
        default="",
        help="your bot: a .py file (run with this Python) or an executable",
    )
    trial.add_argument(
        "--cmd",
        default="",
        help='the command that runs your bot instead of FILE, e.g. "node bot.js" (default: none)',
    )
    trial.add_argument("--game", default="hart", choices=engines.names(), help="(default: hart)")
    trial.add_argument("--matches", type=positive(), default=3, help="matches to play (default: 3)")
    trial.add_argument(
        "--seats", type=positive(), help="seats per match (default: the game's fewest)"
    )
    trial.add_argument(
        "--opponents",
        choices=["heuristic", "random"],
        default="heuristic",
        help="the reference strategy of the other seats (default: heuristic)",
    )
    trial.add_argument(
        "--per-decision",
        type=positive(float),
        default=2.0,
        help="seconds per decision, with no time bank: a slower answer is late (default: 2)",
    )
    trial.add_argument("--seed", type=int, default=1, help="first match's seed (default: 1)")
    trial.set_defaults(func=_bot_test)

    match = sub.add_parser("match", help="admin: run one match between connected bots")
    match.add_argument("--game", required=True, choices=engines.names(), help="the game")
    match.add_argument(
        "--bots", required=True, help="registered bot names in seat order, comma-separated"
    )
    match.add_argument("--seed", type=int, default=0, help="the match's seed (default: 0)")
    match.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option, repeatable (default: the game's defaults, see `arena games`)",
    )
    match.add_argument(
        "--per-decision",
        type=positive(float),
        default=5.0,
        help="seconds per decision (default: 5)",
    )
    match.add_argument("--address", default="", help=ADDRESS_HELP)
    match.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)
    match.add_argument(
        "--every", type=positive(), default=25, help="print every Nth decision (default: 25)"
    )
    match.set_defaults(func=lambda a: asyncio.run(_match(a)))
    web_cli.add_commands(sub)


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
