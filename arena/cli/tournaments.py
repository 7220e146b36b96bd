"""`arena tournament create|list|show`, `arena leaderboard`, `arena up` and `arena demo`."""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc

import engines
from arena.cli import entrants as entrant_cli
from arena.cli import schedules as schedule_cli
from arena.cli.errors import CliError, ExitCode, positive
from arena.cli.target import ADDRESS_HELP, ADMIN_TOKEN_HELP, address_of, admin_metadata
from arena.referee.auth import write_secret
from arena.referee.clock import seconds, to_duration
from arena.render import Paint
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2

STATUS = {v: k[18:].lower() for k, v in arena_pb2.TournamentStatus.items()}


# -- tournaments ----------------------------------------------------------------------------------
async def create(args: argparse.Namespace) -> int:
    """Schedule a tournament and print its id."""
    request = arena_pb2.CreateTournamentRequest(
        name=args.name,
        game=args.game,
        bots=[b.strip() for b in args.bots.split(",") if b.strip()],
        table_size=args.table_size,
        rounds=args.rounds,
        seed=args.seed,
        clock=common_pb2.Clock(per_decision=to_duration(seconds(args.per_decision))),
        format=entrant_cli.FORMATS[args.format],
        rating_system=entrant_cli.RATING_SYSTEMS[args.rating_system],
        forfeit_limit=args.forfeit_limit,
    )
    request.starts_at.FromDatetime(datetime.now(UTC) + timedelta(seconds=args.start_in))
    async with grpc.aio.insecure_channel(address_of(args)) as channel:
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
    async with grpc.aio.insecure_channel(address_of(args)) as channel:
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
    address: str, tournament_id: int, paint: Paint, timeout: float = 3600
) -> arena_pb2.Tournament:
    """Show progress until the tournament finishes; return its final state."""
    live = sys.stdout.isatty()
    shown: tuple[Any, ...] = ()
    drawn = 0
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(address) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
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
        t = await follow(address_of(args), args.tournament_id, paint)
        if not sys.stdout.isatty():
            print("\n".join(standings_lines(t, paint)))
        return 0
    async with grpc.aio.insecure_channel(address_of(args)) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        t = await api.GetTournament(
            arena_pb2.GetTournamentRequest(tournament_id=args.tournament_id)
        )
    print("\n".join(standings_lines(t, paint)))
    return 0


async def leaderboard(args: argparse.Namespace) -> int:
    """Print a game's Elo leaderboard."""
    async with grpc.aio.insecure_channel(address_of(args)) as channel:
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


# -- up and demo ----------------------------------------------------------------------------------
def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _check_ports_free(ports: dict[str, int]) -> None:
    for flag, port in ports.items():
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(("0.0.0.0", port))
            except OSError:
                raise CliError(
                    f"port {port} is in use by another program (or an arena with another "
                    "ARENA_HOME)",
                    f"stop it, or pass --{flag} with a free port",
                    ExitCode.UNAVAILABLE,
                ) from None


def _answers(address: str) -> bool:
    """Whether something accepts connections at `address` (a stale state file's pid may have
    been reused by an unrelated process)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return True
    except (OSError, ValueError):
        return False


def _say_running(info: Any, folder: Path) -> None:
    print(
        f"arena is already running in {folder} (pid {info.pid}); leaving it alone\n"
        f"  referee at {info.address}; admin token in {folder / 'admin-token'}\n"
        f"  logs in {info.logs}\n"
        f"  stop it with Ctrl-C where it runs, or `kill {info.pid}`",
        flush=True,
    )


def up(args: argparse.Namespace) -> int:
    """Start the services and keep them running until Ctrl-C or SIGTERM."""
    from arena.cli.up_status import StatusWatcher
    from arena.ops.home import StackInfo, data_dir
    from arena.ops.stack import Stack, StackConfig
    from arena.storage.embedded import file_lock

    folder = Path(args.data_dir).expanduser().resolve() if args.data_dir else data_dir()
    config = StackConfig(
        data_dir=folder,
        port=args.port,
        referee_metrics_port=args.referee_metrics_port,
        worker_metrics_port=args.worker_metrics_port,
        beat_metrics_port=args.beat_metrics_port,
        concurrency=args.concurrency,
        per_decision=args.per_decision,
        web_port=args.web_port,
        web_metrics_port=args.web_metrics_port,
        spectator_delay=args.spectator_delay,
        logs_to_files=args.logs == "files",
    )
    stop = {"now": False}

    def request_stop(*_: object) -> None:
        stop["now"] = True

    folder.mkdir(parents=True, exist_ok=True)
    stack = Stack(config)
    with file_lock(folder / "up.lock"):  # a second `arena up` waits here, then finds this one
        running = StackInfo.read(folder)
        if running is not None and _answers(running.address):
            _say_running(running, folder)
            return 0
        _check_ports_free(
            {
                "port": config.port,
                "referee-metrics-port": config.referee_metrics_port,
                "worker-metrics-port": config.worker_metrics_port,
                "beat-metrics-port": config.beat_metrics_port,
                **(
                    {
                        "web-port": config.web_port,
                        "web-metrics-port": config.web_metrics_port,
                    }
                    if config.web_port >= 0
                    else {}
                ),
            }
        )
        token_file = folder / "admin-token"
        if not os.environ.get("ARENA_ADMIN_TOKEN") and token_file.exists():
            stack.admin_token = token_file.read_text().strip()  # scripts keep working
        print(f"starting arena in {folder} ...", flush=True)
        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        try:
            stack.start()
        except ChildProcessError as exc:
            log_hint = f"see {folder / 'logs' / 'referee.log'}" if config.logs_to_files else ""
            raise CliError(str(exc), log_hint, ExitCode.UNAVAILABLE) from None
        write_secret(token_file, stack.admin_token + "\n")
        logs = folder / "logs"
        StackInfo(
            pid=os.getpid(),
            address=stack.address,
            referee_metrics_port=config.referee_metrics_port,
            worker_metrics_port=config.worker_metrics_port,
            beat_metrics_port=config.beat_metrics_port,
            logs=str(logs),
            database_url=stack.services.database_url,
            redis_url=stack.services.redis_url,
        ).write(folder)
    try:
        print(
            f"arena is up in {folder}\n"
            f"  referee     {stack.address} (gRPC; metrics http://127.0.0.1:"
            f"{config.referee_metrics_port}/metrics)\n"
            f"  worker      metrics http://127.0.0.1:{config.worker_metrics_port}/metrics\n"
            f"  beat        metrics http://127.0.0.1:{config.beat_metrics_port}/metrics\n"
            f"  database    {stack.services.database_url}\n"
            f"  redis       {stack.services.redis_url}\n"
            f"  admin token {token_file}\n"
            + (
                f"  logs        {logs}/referee.log, worker.log, beat.log\n"
                if config.logs_to_files
                else ""
            )
            + f"register a bot: `arena bot register NAME` (commands find this stack through "
            f"ARENA_HOME={folder}); Ctrl-C stops everything",
            flush=True,
        )
        if config.web_port >= 0:
            print(
                f"  web pages at {stack.web_url} (metrics :{config.web_metrics_port})", flush=True
            )
        watcher = StatusWatcher(stack.address)
        next_poll = 0.0
        while not stop["now"]:
            dead = stack.check()
            if dead:
                print(
                    f"arena: {', '.join(dead)} exited; stopping (see {logs})",
                    file=sys.stderr,
                )
                return ExitCode.UNAVAILABLE
            if time.monotonic() >= next_poll:
                next_poll = time.monotonic() + args.status_every
                for line in watcher.poll():
                    print(f"{time.strftime('%H:%M:%S')} {line}", flush=True)
            time.sleep(0.2)
        print("stopping", flush=True)
    finally:
        StackInfo.clear(folder, os.getpid())
        stack.stop()
    return 0


def demo(args: argparse.Namespace) -> int:
    """The whole job on embedded services: 16 bot processes play a 5-round Swiss of Hart."""
    from arena.ops.stack import BotProcesses, Stack, StackConfig

    paint = Paint()
    keep = bool(args.data_dir)
    data = Path(args.data_dir or tempfile.mkdtemp(prefix="arena-demo-")).resolve()
    config = StackConfig(
        data_dir=data,
        port=free_port(),
        referee_metrics_port=free_port(),
        worker_metrics_port=free_port(),
        beat_metrics_port=free_port(),
        concurrency=args.concurrency,
        per_decision=args.per_decision,
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
            final = asyncio.run(follow(stack.address, tournament_id, paint, timeout=args.timeout))
            if not sys.stdout.isatty():
                print("\n".join(standings_lines(final, paint)))
            print()
            board = asyncio.run(_leaderboard(stack.address, "hart"))
            print("\n".join(leaderboard_lines(board, paint)))
            print(f"\n  the tournament in a browser: {stack.web_url}tournaments/{tournament_id}")
            if args.keep:
                _keep_running(stack)
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


async def _wait_bots(address: str, count: int, timeout: float = 120) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        deadline = time.monotonic() + timeout
        while len((await api.ListBots(arena_pb2.ListBotsRequest())).bots) < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"fewer than {count} bots connected after {timeout}s")
            await asyncio.sleep(0.2)


async def _schedule(stack: Any, names: list[str], args: argparse.Namespace) -> int:
    request = arena_pb2.CreateTournamentRequest(
        name="demo swiss",
        game="hart",
        bots=names,
        table_size=4,
        rounds=args.rounds,
        clock=common_pb2.Clock(per_decision=to_duration(seconds(args.per_decision))),
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
    """Add the tournament, leaderboard, up and demo subcommands."""
    tournament = sub.add_parser("tournament", help="create, list and show Swiss tournaments")
    t_sub = tournament.add_subparsers(dest="tournament_command", required=True)
    c = t_sub.add_parser("create", help="admin: schedule a Swiss tournament")
    c.add_argument("--game", required=True, choices=engines.names(), help="the game")
    c.add_argument("--bots", required=True, help="registered entrants by name, comma-separated")
    c.add_argument("--name", default="", help="a display name (default: none)")
    c.add_argument("--table-size", type=positive(), default=4, help="seats per table (default: 4)")
    c.add_argument(
        "--rounds",
        type=positive(zero=True),
        default=0,
        help="rounds; 0 chooses from the field size (default: 0)",
    )
    c.add_argument(
        "--per-decision",
        type=positive(float),
        default=5.0,
        help="seconds per decision (default: 5)",
    )
    c.add_argument(
        "--start-in",
        type=positive(float, zero=True),
        default=0.0,
        help="seconds from now until round 1 (default: 0)",
    )
    c.add_argument("--seed", type=int, default=0, help="seed of pairings and matches (default: 0)")
    c.add_argument("--quiet", action="store_true", help="print only the id")
    c.add_argument("--address", default="", help=ADDRESS_HELP)
    c.add_argument("--admin-token", default="", help=ADMIN_TOKEN_HELP)
    c.set_defaults(func=lambda a: asyncio.run(create(a)))
    ls = t_sub.add_parser("list", help="list tournaments")
    ls.add_argument("--limit", type=positive(), default=50, help="at most this many (default: 50)")
    ls.add_argument("--address", default="", help=ADDRESS_HELP)
    ls.set_defaults(func=lambda a: asyncio.run(list_all(a)))
    sh = t_sub.add_parser("show", help="standings and progress of a tournament")
    sh.add_argument("tournament_id", type=positive(), help="the id `tournament create` printed")
    sh.add_argument("--follow", action="store_true", help="follow it live until it finishes")
    sh.add_argument("--address", default="", help=ADDRESS_HELP)
    sh.set_defaults(func=lambda a: asyncio.run(show(a)))

    lb = sub.add_parser("leaderboard", help="the Elo leaderboard of a game")
    lb.add_argument("--game", required=True, choices=engines.names(), help="the game")
    lb.add_argument(
        "--limit", type=positive(), default=20, help="at most this many bots (default: 20)"
    )
    lb.add_argument("--address", default="", help=ADDRESS_HELP)
    lb.set_defaults(func=lambda a: asyncio.run(leaderboard(a)))

    u = sub.add_parser(
        "up",
        help="start the services and keep them running; a second `arena up` on the same data "
        "directory only says where the running one is",
    )
    u.add_argument(
        "--data-dir",
        default="",
        help="where databases, logs and the admin token live (default: ARENA_HOME, else "
        "~/.local/share/arena)",
    )
    u.add_argument(
        "--port", type=positive(), default=50051, help="referee gRPC port (default: 50051)"
    )
    u.add_argument(
        "--referee-metrics-port",
        type=positive(),
        default=9101,
        help="referee /metrics port (default: 9101)",
    )
    u.add_argument(
        "--worker-metrics-port",
        type=positive(),
        default=9102,
        help="Celery worker /metrics port (default: 9102)",
    )
    u.add_argument(
        "--beat-metrics-port",
        type=positive(),
        default=9103,
        help="Celery beat /metrics port (default: 9103)",
    )
    u.add_argument(
        "--concurrency",
        type=positive(),
        default=8,
        help="Celery worker processes, i.e. matches played at once (default: 8)",
    )
    u.add_argument(
        "--per-decision",
        type=positive(float),
        default=5.0,
        help="default seconds per decision (default: 5)",
    )
    u.add_argument(
        "--logs",
        choices=["files", "terminal"],
        default="files",
        help="where the services' full logs go: files under DATA_DIR/logs, printed at start, "
        "with a short status here; or this terminal (default: files)",
    )
    u.add_argument(
        "--status-every",
        type=positive(float),
        default=2.0,
        help="seconds between checks for finished matches and rounds (default: 2)",
    )
    u.add_argument(
        "--web-port",
        type=int,
        default=8080,
        help="web pages port, -1 for no web server (default: 8080)",
    )
    u.add_argument(
        "--web-metrics-port",
        type=int,
        default=9104,
        help="web server /metrics port (default: 9104)",
    )
    u.add_argument(
        "--spectator-delay",
        type=positive(float, zero=True),
        default=3.0,
        help="seconds the web pages show a running match behind (default: 3)",
    )
    u.set_defaults(func=up)

    d = sub.add_parser("demo", help="the whole job: 16 bots play a Swiss of Hart")
    d.add_argument("--bots", type=positive(), default=16, help="bot processes (default: 16)")
    d.add_argument("--rounds", type=positive(), default=5, help="Swiss rounds (default: 5)")
    d.add_argument(
        "--per-decision",
        type=positive(float),
        default=2.0,
        help="seconds per decision (default: 2)",
    )
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
    entrant_cli.add_commands(t_sub, c, lb)
    schedule_cli.add_commands(sub)
    schedule_cli.add_ladder_commands(sub)
