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
from arena.cli.options import add_bind, add_per_decision
from arena.cli.up_ports import check_port_plan, check_ports_free, planned_ports
from arena.cli.up_status import StatusWatcher
from arena.ops.bind import EVERY_INTERFACE, connect_host, grpc_address, http_host
from arena.ops.home import StackInfo, data_dir
from arena.ops.stack import Stack, StackConfig
from arena.ops.tls import ServerTls, ServerTlsError, add_server_arguments
from arena.referee.auth import write_secret
from arena.referee.clock import seconds
from arena.sdk.tls import PLAINTEXT, ClientTls, TlsConfigError
from arena.storage.embedded import file_lock


def _answers(address: str) -> bool:
    """Whether something accepts connections at `address` (a stale state file's pid may have
    been reused by an unrelated process)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return True
    except (OSError, ValueError):
        return False


def _tls(args: argparse.Namespace) -> tuple[ServerTls | None, ClientTls]:
    """The stack's TLS: the referees' and web's certificate, and how its own clients reach
    the referees (TLS exactly when the referees serve it)."""
    try:
        server = ServerTls.of_args(args)
        wanted = argparse.Namespace(tls=server is not None, tls_ca=args.tls_ca)
        client = ClientTls.of_args(wanted) if server is not None else PLAINTEXT
    except (ServerTlsError, TlsConfigError) as exc:
        raise CliError(str(exc), "give readable PEM files", ExitCode.USAGE) from None
    return server, client


def _say_running(info: StackInfo, folder: Path) -> None:
    print(
        f"arena is already running in {folder} (pid {info.pid}); leaving it alone\n"
        f"  referee at {', '.join(info.referee_addresses or [info.address])}; admin token in "
        f"{folder / 'admin-token'}\n"
        f"  logs in {info.logs}\n"
        f"  stop it with Ctrl-C where it runs, or `kill {info.pid}`",
        flush=True,
    )


def up(args: argparse.Namespace) -> int:
    """Start the services and keep them running until Ctrl-C or SIGTERM."""
    folder = Path(args.data_dir).expanduser().resolve() if args.data_dir else data_dir()
    server_tls, client_tls = _tls(args)
    config = StackConfig(
        tls=server_tls,
        client_tls=client_tls,
        data_dir=folder,
        port=args.port,
        referee_metrics_port=args.referee_metrics_port,
        worker_metrics_port=args.worker_metrics_port,
        beat_metrics_port=args.beat_metrics_port,
        runner_metrics_port=args.runner_metrics_port,
        concurrency=args.concurrency,
        per_decision=seconds(args.per_decision),
        web_port=args.web_port,
        web_metrics_port=args.web_metrics_port,
        spectator_delay=seconds(args.spectator_delay),
        logs_to_files=args.logs == "files",
        referees=args.referees,
        runners=args.runners,
        bind=args.bind,
    )
    check_port_plan(config)
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
        check_ports_free(planned_ports(config), http_host(config.bind))
        token_file = folder / "admin-token"
        if not os.environ.get("ARENA_ADMIN_TOKEN") and token_file.exists():
            stack.admin_token = token_file.read_text().strip()  # scripts keep working
        print(f"starting arena in {folder} ...", flush=True)
        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        try:
            stack.start()
        except ChildProcessError as exc:
            log_hint = (
                f"see the referees' logs in {folder / 'logs'}" if config.logs_to_files else ""
            )
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
            referee_addresses=[r.address for r in stack.referees],
        ).write(folder)
    try:
        print(up_text(stack, folder), flush=True)
        if config.web_port >= 0:
            print(
                f"  web pages at {stack.web_url} (metrics :{config.web_metrics_port})", flush=True
            )
        return _watch(stack, logs, args.status_every, stop)
    finally:
        StackInfo.clear(folder, os.getpid())
        stack.stop()


def bound_addresses(stack: Stack) -> list[str]:
    """Every address the stack listens on."""
    c, host = stack.config, http_host(stack.config.bind)
    out = [grpc_address(c.bind, r.port) for r in stack.referees]
    out += [f"{host}:{r.metrics_port}" for r in stack.referees]
    out += [f"{host}:{c.worker_metrics_port}", f"{host}:{c.beat_metrics_port}"]
    out += [f"{host}:{r.metrics_port}" for r in stack.runners]  # none without bwrap
    if c.web_port >= 0:
        out += [f"{host}:{c.web_port}", f"{host}:{c.web_metrics_port}"]
    return out


def up_text(stack: Stack, folder: Path) -> str:
    """What `arena up` prints once everything answers: a line per referee and per service."""
    config = stack.config
    logs = folder / "logs"
    host = connect_host(config.bind)
    referee_lines = "".join(
        f"  {r.name if config.referees > 1 else 'referee':<11} {r.address} (gRPC; metrics "
        f"http://{host}:{r.metrics_port}/metrics)\n"
        for r in stack.referees
    )
    everywhere = config.bind in EVERY_INTERFACE
    reach = (
        "every interface"
        if everywhere
        else "this machine only"
        if host.startswith("127.")
        else host
    )
    referee_logs = ", ".join(f"{r.label}.log" for r in stack.referees)
    return (
        f"arena is up in {folder}\n"
        + f"  listening   on {', '.join(bound_addresses(stack))} ({reach}; --bind to change)\n"
        + referee_lines
        + f"  worker      metrics http://{host}:{config.worker_metrics_port}/metrics\n"
        f"  beat        metrics http://{host}:{config.beat_metrics_port}/metrics\n"
        + "".join(
            f"  {r.name:<11} metrics http://{host}:{r.metrics_port}/metrics\n"
            for r in stack.runners
        )
        + f"  database    {stack.services.database_url}\n"
        f"  redis       {stack.services.redis_url}\n"
        f"  admin token {folder / 'admin-token'}\n"
        + (
            f"  logs        {logs}/{referee_logs}, worker.log, beat.log\n"
            if config.logs_to_files
            else ""
        )
        + f"register a bot: `arena bot register NAME` (commands find this stack through "
        f"ARENA_HOME={folder}); Ctrl-C stops everything"
    )


def _watch(stack: Stack, logs: Path, status_every: float, stop: dict[str, bool]) -> int:
    """Print the status until `stop["now"]`; end early when a process the stack needs exits.
    With several referees (or runners) one may exit: the others take over its matches (or its
    hosted bots); that is reported once, and the stack goes on while one of them is left."""
    groups = {
        "referees take over its matches": {r.label for r in stack.referees},
        "runners take over its hosted bots": {r.label for r in stack.runners},
    }
    reported: set[str] = set()
    watcher = StatusWatcher(stack.address, stack.config.client_tls)
    next_poll = 0.0
    while not stop["now"]:
        dead = set(stack.check())
        for others, group in groups.items():
            for name in sorted((dead & group) - reported):
                if len(group) > 1:
                    print(
                        f"arena: {name} exited; the other {others} (see {logs})",
                        file=sys.stderr,
                        flush=True,
                    )
                reported.add(name)
        spared = set().union(*groups.values())
        if dead - spared or any(group and dead >= group for group in groups.values()):
            print(
                f"arena: {', '.join(sorted(dead))} exited; stopping (see {logs})", file=sys.stderr
            )
            return ExitCode.UNAVAILABLE
        if time.monotonic() >= next_poll:
            next_poll = time.monotonic() + status_every
            for line in watcher.poll():
                print(f"{time.strftime('%H:%M:%S')} {line}", flush=True)
        time.sleep(0.2)
    print("stopping", flush=True)
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
        "--port",
        type=positive(),
        default=50051,
        help="referee gRPC port, the first one with --referees (default: 50051)",
    )
    add_bind(u, "127.0.0.1", "every service of the stack (referees, metrics, web)")
    u.add_argument(
        "--referees",
        type=positive(),
        default=1,
        help="referee processes, named referee-0 .. referee-N-1, on N consecutive gRPC ports from "
        "--port and N consecutive metrics ports from --referee-metrics-port, sharing the "
        "database and Redis (default: 1)",
    )
    u.add_argument(
        "--referee-metrics-port",
        type=positive(),
        default=9101,
        help="referee /metrics port, the first one with --referees; the others take the next "
        "ports the other services do not use (default: 9101)",
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
        "--runner-metrics-port",
        type=positive(),
        default=9109,
        help="the hosted-bot runner's /metrics port, the first one with --runners (default: 9109)",
    )
    u.add_argument(
        "--runners",
        type=positive(),
        default=1,
        help="hosted-bot runners, named runner-0 .. runner-N-1, where bwrap is installed; a "
        "runner that dies has its bots run by the others (default: 1)",
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
    add_server_arguments(u, "referees' gRPC ports and the web pages")
    u.add_argument(
        "--tls-ca",
        metavar="FILE",
        default="",
        help="with --tls-cert: the PEM CA the stack's own clients (workers, health checks) "
        "trust for it (default: ARENA_TLS_CA, else the system's roots)",
    )
    u.set_defaults(func=up)
