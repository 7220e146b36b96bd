"""`arena web`: serve the pages and the JSON API with uvicorn, and metrics on their own port."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from datetime import timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from starlette.applications import Starlette

from arena.ops.tls import ServerTls, ServerTlsError, add_server_arguments

DEFAULT_PORT = 8080
CONFIG_ENV = "ARENA_WEB_CONFIG"
"""How the parent hands its settings to its worker processes (JSON; see `app_from_environment`)."""


def serve(args: argparse.Namespace) -> int:
    """Run the web server until Ctrl-C or SIGTERM."""
    # Imported here so that `arena --help` and the other commands do not load the web stack.
    import uvicorn
    from prometheus_client import start_http_server

    from arena.cli.ports import ensure_free
    from arena.ops.logs import configure_logging
    from arena.ops.services import ENV_REDIS_URL, database_url
    from arena.storage.db import Database
    from arena.storage.errors import Unavailable
    from arena.web.app import create_app

    for value, flag in [(args.spectator_delay, "--spectator-delay"), (args.fresh, "--fresh")]:
        if value < 0:
            print(f"arena: {flag} must be 0 or more seconds", file=sys.stderr)
            return 2
    if not 1 <= args.workers <= 64 or not 1 <= args.pool <= 100:
        print("arena: --workers must be 1-64 and --pool 1-100", file=sys.stderr)
        return 2
    try:
        tls = ServerTls.of_args(args)
    except ServerTlsError as exc:
        print(f"arena: {exc}; give readable PEM files", file=sys.stderr)
        return 2
    ensure_free(args.port, "--port", "the web pages", args.host)
    if args.metrics_port >= 0:
        ensure_free(args.metrics_port, "--metrics-port", "the web metrics")
    configure_logging("web")
    settings = {
        "database_url": database_url(),
        "spectator_delay": args.spectator_delay,
        "poll_interval": args.poll,
        "fresh_for": args.fresh,
        "pool_size": args.pool,
        "redis_url": os.environ.get(ENV_REDIS_URL, ""),
    }
    config = _config(settings)
    try:
        asyncio.run(_check_database(Database, config.database_url))
    except Unavailable as exc:
        print(f"arena: {exc}", file=sys.stderr)
        return 5
    scheme = "http" if tls is None else "https"
    metrics_at = f", metrics on {args.host}:{args.metrics_port}" if args.metrics_port >= 0 else ""
    print(
        f"arena web on {scheme}://{args.host}:{args.port}/{metrics_at}", file=sys.stderr, flush=True
    )
    common: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_level": "warning",
        "access_log": False,
        "http": "httptools",  # a dependency: lighter than h11 per write of a live stream
        **(tls.uvicorn_options() if tls is not None else {}),
        "timeout_graceful_shutdown": 3,  # live streams never end by themselves
    }
    if args.workers == 1:
        if args.metrics_port >= 0:
            start_http_server(args.metrics_port, addr=args.host)
        uvicorn.run(create_app(config), **common)
        return 0
    with tempfile.TemporaryDirectory(prefix="arena-web-metrics-") as folder:
        # Worker processes count into files here; this process serves their sum.
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
        os.environ[CONFIG_ENV] = json.dumps(settings)
        if args.metrics_port >= 0:
            from prometheus_client import CollectorRegistry, multiprocess  # only with workers

            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]
            start_http_server(args.metrics_port, addr=args.host, registry=registry)
        uvicorn.run(
            "arena.web.cli:app_from_environment", factory=True, workers=args.workers, **common
        )
    return 0


def _config(settings: dict[str, Any]) -> Any:
    from arena.web.app import WebConfig  # it loads starlette; see serve()

    return WebConfig(
        database_url=str(settings["database_url"]),
        spectator_delay=timedelta(seconds=float(settings["spectator_delay"])),
        poll_interval=timedelta(seconds=float(settings["poll_interval"])),
        fresh_for=timedelta(seconds=float(settings["fresh_for"])),
        pool_size=int(settings["pool_size"]),
        redis_url=str(settings.get("redis_url", "")),
    )


def app_from_environment() -> Starlette:
    """The application of one worker process, configured by its parent (`--workers`)."""
    from arena.web.app import create_app  # it loads starlette; see serve()

    return create_app(_config(json.loads(os.environ[CONFIG_ENV])))


async def _check_database(database: Any, url: str) -> None:
    """Fail early, in one line, when Postgres cannot be reached."""
    db = await database.open(url, min_size=1, max_size=1)
    await db.close()


def add_commands(sub: Any) -> None:
    """Add `arena web` to the `arena` parser."""
    from arena.web.metrics import DEFAULT_METRICS_PORT  # it loads starlette; see serve()

    web = sub.add_parser("web", help="serve the web pages and the JSON API")
    web.add_argument(
        "--host",
        "--bind",
        dest="host",
        default=os.environ.get("ARENA_WEB_HOST", "127.0.0.1"),
        help="interface the web and metrics ports listen on (default $ARENA_WEB_HOST or "
        "127.0.0.1; 0.0.0.0 for all)",
    )
    web.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("ARENA_WEB_PORT", DEFAULT_PORT)),
        help=f"HTTP port (default $ARENA_WEB_PORT or {DEFAULT_PORT})",
    )
    web.add_argument(
        "--metrics-port",
        type=int,
        default=int(os.environ.get("ARENA_WEB_METRICS_PORT", DEFAULT_METRICS_PORT)),
        help="Prometheus metrics port, -1 to disable "
        f"(default $ARENA_WEB_METRICS_PORT or {DEFAULT_METRICS_PORT})",
    )
    web.add_argument(
        "--spectator-delay",
        type=float,
        default=float(os.environ.get("ARENA_SPECTATOR_DELAY", "3")),
        help="seconds a running match is shown behind (default $ARENA_SPECTATOR_DELAY or 3)",
    )
    web.add_argument(
        "--poll", type=float, default=1.0, help="seconds between live page updates (default 1)"
    )
    web.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("ARENA_WEB_WORKERS", "1")),
        help="server processes sharing the port; one per core uses them all "
        "(default $ARENA_WEB_WORKERS or 1)",
    )
    web.add_argument(
        "--pool",
        type=int,
        default=10,
        help="Postgres connections per process (default 10)",
    )
    web.add_argument(
        "--fresh",
        type=float,
        default=1.0,
        help="seconds a rendered page or API answer is shared by all who ask (default 1; "
        "a finished match's are kept for good)",
    )
    add_server_arguments(web, "web pages (HTTPS)")
    web.set_defaults(func=serve)
