"""`arena web`: serve the pages and the JSON API with uvicorn, and metrics on their own port."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from datetime import timedelta
from typing import Any

DEFAULT_PORT = 8080


def serve(args: argparse.Namespace) -> int:
    """Run the web server until Ctrl-C or SIGTERM."""
    # Imported here so that `arena --help` and the other commands do not load the web stack.
    import uvicorn
    from prometheus_client import start_http_server

    from arena.ops.logs import configure_logging
    from arena.ops.services import database_url
    from arena.storage.db import Database
    from arena.storage.errors import Unavailable
    from arena.web.app import WebConfig, create_app

    if args.spectator_delay < 0:
        print("arena: --spectator-delay must be 0 or more seconds", file=sys.stderr)
        return 2
    configure_logging("web")
    config = WebConfig(
        database_url=database_url(),
        spectator_delay=timedelta(seconds=args.spectator_delay),
        poll_interval=timedelta(seconds=args.poll),
    )
    try:
        asyncio.run(_check_database(Database, config.database_url))
    except Unavailable as exc:
        print(f"arena: {exc}", file=sys.stderr)
        return 5
    if args.metrics_port >= 0:
        start_http_server(args.metrics_port)
    print(f"arena web on http://{args.host}:{args.port}/", file=sys.stderr, flush=True)
    uvicorn.run(
        create_app(config),
        host=args.host,
        port=args.port,
        log_level="warning",
        access_log=False,
    )
    return 0


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
        default=os.environ.get("ARENA_WEB_HOST", "127.0.0.1"),
        help="interface to listen on (default $ARENA_WEB_HOST or 127.0.0.1; 0.0.0.0 for all)",
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
    web.set_defaults(func=serve)
