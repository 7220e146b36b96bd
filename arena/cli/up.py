"""`arena up`: start the services on this machine and keep them running until Ctrl-C."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any

from arena.cli.errors import CliError, ExitCode, positive
from arena.cli.options import add_per_decision
from arena.cli.up_status import StatusWatcher
from arena.ops.home import StackInfo, data_dir
from arena.ops.stack import Stack, StackConfig
from arena.referee.auth import write_secret
from arena.referee.clock import seconds
from arena.storage.embedded import file_lock


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
    folder = Path(args.data_dir).expanduser().resolve() if args.data_dir else data_dir()
    config = StackConfig(
        data_dir=folder,
        port=args.port,
        referee_metrics_port=args.referee_metrics_port,
        worker_metrics_port=args.worker_metrics_port,
        beat_metrics_port=args.beat_metrics_port,
        concurrency=args.concurrency,
        per_decision=seconds(args.per_decision),
        web_port=args.web_port,
        web_metrics_port=args.web_metrics_port,
        spectator_delay=seconds(args.spectator_delay),
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


def add_commands(sub: Any) -> None:
    """Add the `up` subcommand."""
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
    add_per_decision(u, 5.0, help="default seconds per decision")
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
