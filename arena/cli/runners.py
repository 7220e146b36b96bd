"""`arena runner` (run the needed hosted bots in sandboxes) and `arena runners` (list them)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import signal
import socket
from datetime import timedelta
from pathlib import Path
from typing import Any

from prometheus_client import start_http_server

from arena.cli.errors import CliError, ExitCode
from arena.cli.options import add_bind
from arena.cli.ports import ensure_free
from arena.cli.serve import existing_database_url
from arena.cli.target import ADDRESS_HELP, address_of
from arena.hosting.runner import CAPACITY, Runner
from arena.hosting.runtime import ENV_NODE_SDK, RuntimeMissing, detect
from arena.hosting.sandbox import SandboxUnavailable, find_bwrap
from arena.hosting.supervisor import Placement
from arena.ops.bind import BIND_ENV, http_host
from arena.ops.services import data_dir
from arena.storage import Database
from arena.storage.runners import Runners

STOPS_WITHIN = timedelta(days=7)
"""How far back `arena runners` lists hosted bots' stops."""
METRICS_PORT = 9109
"""A runner's default Prometheus port (docs/operations.md lists every process's)."""
NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")
"""A runner's name: it names its cgroup folder and its workdir, so no '/' and no leading '.'."""
CGROUP_BASE = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*")
"""A cgroup folder under /sys/fs/cgroup (or each v1 controller's): relative, no '..'."""


async def _runner(args: argparse.Namespace) -> int:
    name = args.name or f"runner-{socket.gethostname()}"
    if NAME.fullmatch(name) is None:
        raise CliError(
            f"a runner's name is 1-64 letters, digits, '.', '_' or '-', got {name[:40]!r}",
            "pass --name",
        )
    try:
        bwrap = find_bwrap()
    except SandboxUnavailable as exc:
        raise CliError(str(exc), "see docs/operations.md", ExitCode.UNAVAILABLE) from None
    referee = address_of(args)
    if referee.count(":") != 1:
        raise CliError(f"a runner forwards to one host:port, not {referee!r}", "pass --address")
    if CGROUP_BASE.fullmatch(args.cgroup_base) is None:
        raise CliError(f"--cgroup-base is a relative cgroup path, got {args.cgroup_base[:60]!r}")
    host = http_host(args.bind)
    if args.metrics_port >= 0:
        ensure_free(args.metrics_port, "--metrics-port", f"runner {name}'s metrics", host)
    workdir = Path(args.workdir) if args.workdir else data_dir() / "runners" / name
    try:
        runtime = detect(Path(args.node_sdk) if args.node_sdk else None)
    except RuntimeMissing as exc:
        raise CliError(str(exc), f"pass --node-sdk or set {ENV_NODE_SDK}") from None
    workdir.mkdir(parents=True, exist_ok=True)
    db = await Database.open(existing_database_url())
    placement = Placement(referee, workdir, runtime, bwrap, cgroup_base=args.cgroup_base)
    runner = Runner(name, db.pool, placement, capacity=args.capacity)
    if args.metrics_port >= 0:
        start_http_server(args.metrics_port, addr=host)
    task = asyncio.create_task(runner.run())
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, task.cancel)
    also = f", metrics on {host}:{args.metrics_port}" if args.metrics_port >= 0 else ""
    where = f"hosted bots forwarded to {referee}, files in {workdir}{also}"
    print(f"runner {name}: {where}", flush=True)
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    finally:
        await db.close()
    return 0


async def _runners(args: argparse.Namespace) -> int:
    db = await Database.open(existing_database_url())
    try:
        rows = await Runners(db.pool).listed()
        stops = await Runners(db.pool).recent_stops(STOPS_WITHIN)
    finally:
        await db.close()
    if not rows:
        print("no runner has reported; start one with `arena runner` (or `arena up`)")
    for row in rows:
        print(
            f"{row.name:<24} seen {row.seen_at:%Y-%m-%d %H:%M:%S} "
            f"{row.bots_running:>3} bots running {row.restarts:>5} restarts"
        )
    if stops:
        print(f"hosted bots' last stops (the last {STOPS_WITHIN.days} days):")
    for stop in stops:
        print(
            f"  {stop.bot:<22} {stop.cause:<10} {stop.stopped_at:%Y-%m-%d %H:%M:%S} on "
            f"{stop.runner} ({stop.stops} so far): {stop.detail}"
        )
    return 0


def add_commands(sub: Any) -> None:
    """Add `runner` and `runners` to the top-level subcommands."""
    runner = sub.add_parser("runner", help="run the arena's hosted bots in sandboxes")
    runner.add_argument("--name", default="", help="this runner's name (default: runner-HOST)")
    runner.add_argument("--address", default="", help=ADDRESS_HELP)
    runner.add_argument(
        "--workdir",
        default="",
        help="folder for unpacked bots and sockets (default: ARENA_HOME/runners/NAME)",
    )
    runner.add_argument(
        "--capacity", type=int, default=CAPACITY, help=f"most bots at once (default {CAPACITY})"
    )
    add_bind(runner, "127.0.0.1", "the metrics port", env=BIND_ENV)
    runner.add_argument(
        "--metrics-port",
        type=int,
        default=METRICS_PORT,
        help=f"Prometheus /metrics port, -1 to disable (default: {METRICS_PORT})",
    )
    runner.add_argument(
        "--cgroup-base",
        default=os.environ.get("ARENA_CGROUP_BASE", "arena-hosted"),
        help="the cgroup folder the runner's own folder of bot cgroups goes under "
        "(default: ARENA_CGROUP_BASE, else arena-hosted)",
    )
    runner.add_argument(
        "--node-sdk",
        default="",
        help="the arena-bot package Node bots get (default: ARENA_NODE_SDK, else this"
        " checkout's sdk/node once `make install` has installed its dependencies)",
    )
    runner.set_defaults(func=lambda a: asyncio.run(_runner(a)))
    listed = sub.add_parser("runners", help="the runners and the hosted bots they run")
    listed.set_defaults(func=lambda a: asyncio.run(_runners(a)))
