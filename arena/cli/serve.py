"""`arena serve` and `arena db`: run a referee over the arena's database, and migrate it."""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
from typing import Any

from prometheus_client import start_http_server

from arena.cli import bots as bots_cli
from arena.cli import demo as demo_cli
from arena.cli import matches as matches_cli
from arena.cli import referees as referees_cli
from arena.cli import tournaments as tournament_cli
from arena.cli import up as up_cli
from arena.cli import versiontests as versiontest_cli
from arena.cli.errors import CliError, ExitCode, positive
from arena.cli.options import add_bind, add_per_decision
from arena.cli.ports import ensure_free
from arena.ops import home, metrics
from arena.ops.bind import BIND_ENV, grpc_address, http_host
from arena.ops.logs import logged
from arena.ops.services import data_dir, database_url, redis_url
from arena.ops.tls import ServerTls, ServerTlsError, add_server_arguments
from arena.referee.app import Referee, RefereeConfig
from arena.referee.auth import write_secret
from arena.referee.clock import Clock, seconds
from arena.referee.cluster import CannotJoin, NameTaken
from arena.referee.lease_keeper import lease_timings
from arena.referee.limits import Limits
from arena.referee.server import create_server, serve_until_signalled, tune_gc
from arena.storage import Database
from arena.web import cli as web_cli


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
    tls = _server_tls(args)  # first: a wrong file is the quickest thing to fix
    # Before the database and Redis: grpc binds a port another server holds (SO_REUSEPORT), so a
    # second referee on a taken port would otherwise only fail later, on its name.
    host = http_host(args.bind)
    ensure_free(args.port, "--port", f"referee {args.name}'s gRPC port", host)
    if args.metrics_port >= 0:
        ensure_free(args.metrics_port, "--metrics-port", f"referee {args.name}'s metrics", host)
    token = args.admin_token or os.environ.get("ARENA_ADMIN_TOKEN", "")
    token_file = data_dir() / "admin-token"
    if not token and token_file.exists():  # a restart keeps the token scripts already use
        token = token_file.read_text().strip()
    leases = lease_timings(args.lease)
    # A referee paused mid-transaction (SIGSTOP, a frozen VM) must not keep its matches' rows
    # locked past their lease: the others could not take them over.
    async with await Database.open(database_url(), idle_in_transaction=leases.renew) as db:
        await db.migrate()
        config = RefereeConfig(
            host=args.name,
            admin_token=token,
            reconnect_grace=seconds(args.reconnect_grace),
            default_clock=Clock(per_decision=seconds(args.per_decision)),
            spectator_delay=seconds(args.spectator_delay),
            limits=Limits(open_registration=args.open_registration),
            redis_url=redis_url(),
            address=args.advertise or f"{socket.gethostname()}:{args.port}",
            leases=leases,
        )
        referee = Referee(db, config)
        tune_gc()
        try:
            running = await create_server(referee, grpc_address(args.bind, args.port), tls)
        except NameTaken as exc:
            raise CliError(
                str(exc),
                "give each referee its own --name (`arena referees` lists the names in use)",
                ExitCode.UNAVAILABLE,
            ) from None
        except CannotJoin as exc:
            raise CliError(
                str(exc), "check ARENA_REDIS_URL and that Redis runs", ExitCode.UNAVAILABLE
            ) from None
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
            # This referee's multi-referee series start at 0: a first takeover then shows as an
            # increase, which is what ArenaRefereeTakeover looks for.
            metrics.start_cluster_series(args.name)
            start_http_server(args.metrics_port, addr=http_host(args.bind))
        over = "" if tls is None else " over mutual TLS" if tls.client_ca else " over TLS"
        where = grpc_address(args.bind, running.port)
        also = (
            f", metrics on {http_host(args.bind)}:{args.metrics_port}"
            if args.metrics_port >= 0
            else ""
        )
        print(f"referee {args.name} listening on {where}{over}{also}", file=sys.stderr)
        await serve_until_signalled(running)
    return 0


def _server_tls(args: argparse.Namespace) -> ServerTls | None:
    """The referee port's TLS settings, checked; one line when a file cannot serve."""
    try:
        return ServerTls.of_args(args)
    except ServerTlsError as exc:
        raise CliError(
            str(exc), "give readable PEM files (see docs/operations.md, TLS)", ExitCode.USAGE
        ) from None


async def _migrate(args: argparse.Namespace) -> int:
    async with await Database.open(existing_database_url()) as db:
        applied = await db.migrate()
    print(f"applied migrations {applied}" if applied else "schema is up to date")
    return 0


def add_commands(sub: Any) -> None:
    """Add the service subcommands to the `arena` parser."""
    tournament_cli.add_commands(sub)
    up_cli.add_commands(sub)
    demo_cli.add_commands(sub)
    versiontest_cli.add_commands(sub)
    serve = sub.add_parser("serve", help="run a referee (gRPC, health, reflection, metrics)")
    serve.add_argument("--port", type=int, default=50051, help="gRPC port (default: 50051)")
    add_bind(serve, "[::]", "the gRPC and metrics ports", env=BIND_ENV)
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
        default=os.environ.get("ARENA_RECONNECT_GRACE", "10"),  # argparse applies `type` to it
        help="seconds a dropped bot has to reconnect before its decisions time out "
        "(default: ARENA_RECONNECT_GRACE, else 10)",
    )
    add_per_decision(serve, 5.0, help="default seconds per decision")
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
        help="let anyone register bots and author accounts (default, also "
        "ARENA_OPEN_REGISTRATION=1); "
        "with --no-open-registration only accounts can register bots, and only admins "
        "create accounts",
    )
    serve.add_argument(
        "--advertise",
        default=os.environ.get("ARENA_REFEREE_ADVERTISE", ""),
        help="the address other referees and clients are shown for this one in ListReferees "
        "(default: ARENA_REFEREE_ADVERTISE, else this host's name and --port)",
    )
    serve.add_argument(
        "--lease",
        type=positive(float),
        default=6.0,
        help="seconds a match's lease lasts: a dead referee's matches are taken over by the "
        "others this long after its last renewal (renewed every third of it; default: 6)",
    )
    add_server_arguments(serve, "gRPC port")
    serve.set_defaults(func=lambda a: logged("referee", lambda: asyncio.run(_serve(a))))

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", required=True)
    db_sub.add_parser(
        "migrate",
        help="apply pending migrations to ARENA_DATABASE_URL (or the embedded database in "
        "ARENA_HOME)",
    ).set_defaults(func=lambda a: asyncio.run(_migrate(a)))

    bots_cli.add_commands(sub)
    referees_cli.add_commands(sub)
    matches_cli.add_commands(sub)
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
