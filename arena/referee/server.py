"""Assemble and run the referee's gRPC server: bot and public services, health, reflection."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
from dataclasses import dataclass
from datetime import timedelta

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.ops import metrics
from arena.ops.tls import ServerTls
from arena.referee.account_api import AccountService
from arena.referee.app import Referee
from arena.referee.bot_service import BotService
from arena.referee.guard import Guard
from arena.referee.public_service import PublicService
from arena.referee.rpc import DecodeRefusal
from arena.storage.probe import DatabaseProbe
from arena.v1 import account_pb2, account_pb2_grpc, arena_pb2, arena_pb2_grpc, bot_pb2

log = logging.getLogger(__name__)

SERVICE_NAMES = (
    bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
    arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].full_name,
    account_pb2.DESCRIPTOR.services_by_name["AccountService"].full_name,
)
KEEPALIVE_OPTIONS = [
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
    ("grpc.keepalive_permit_without_calls", 1),
]
GC_THRESHOLDS = (50_000, 20, 20)
"""The collector's thresholds in a referee process. Python's default (700 allocations) runs a
young collection every few decisions and promotes what a decision keeps alive for a few
milliseconds (requests, futures, rows), which later full collections scan again: about 5% of the
referee's CPU at 64 matches (py-spy, bench/README.md). Garbage here is rarely cyclic."""
_gc_tuned = False


def tune_gc() -> None:
    """Freeze what exists now (modules, protos, the engines' tables) out of the collector's
    scans and raise its thresholds; once per process. For a process that serves (`arena serve`,
    the benchmarks), not a library call: tests and embedders keep Python's defaults."""
    global _gc_tuned
    if not _gc_tuned:
        _gc_tuned = True
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)


@dataclass
class RunningServer:
    """A started server and what tests need to reach it."""

    server: grpc.aio.Server
    port: int
    referee: Referee
    health: health.aio.HealthServicer
    probe: DatabaseProbe | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def stop(self, grace: timedelta = timedelta(seconds=1)) -> None:
        """Stop accepting calls, end the matches' tasks and close the streams (calls in flight
        get `grace` to finish)."""
        if self.probe is not None:
            await self.probe.stop()
        for name in (*SERVICE_NAMES, ""):
            await self.health.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
        await self.referee.shutdown()
        await self.server.stop(grace.total_seconds())


async def create_server(
    referee: Referee, address: str = "[::]:50051", tls: ServerTls | None = None
) -> RunningServer:
    """Build and start the server on `address` (port 0 picks a free port), over TLS when `tls`
    is given (mutual TLS when it names a client CA)."""
    limits = referee.config.limits
    server = grpc.aio.server(
        # DecodeRefusal first: later ones see only decoded requests. Then every call passes the
        # permission table (arena/referee/permissions.py).
        interceptors=[
            DecodeRefusal(),
            Guard(referee.db, referee.admin_token, limits.failed_logins, limits.failed_login_delay),
        ],
        options=[
            *KEEPALIVE_OPTIONS,
            ("grpc.max_receive_message_length", limits.max_message_bytes),
            ("grpc.max_concurrent_streams", limits.max_streams_per_connection),
            # grpc sets SO_REUSEPORT by default: a second server on a taken port would bind it
            # too, and the kernel would share new connections between the two (a bot could reach
            # the wrong referee). Off, the second bind fails and says so.
            ("grpc.so_reuseport", 0),
        ],
    )
    BotService(referee).add_to_server(server)
    public = PublicService(referee)
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(public, server)
    account_pb2_grpc.add_AccountServiceServicer_to_server(
        AccountService(referee, public.bots.registrations), server
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*SERVICE_NAMES, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    if tls is None:
        port = server.add_insecure_port(address)
    else:
        port = server.add_secure_port(address, tls.grpc_credentials())
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    await referee.start()  # resumed matches wait for their bots, who connect from now on
    await server.start()
    await _follow_database(health_servicer, True)
    probe = DatabaseProbe(referee.db, referee.config.db_probe_interval)
    probe.listeners.append(lambda up: _follow_database(health_servicer, up))
    probe.start()
    return RunningServer(
        server=server, port=port, referee=referee, health=health_servicer, probe=probe
    )


async def _follow_database(servicer: health.aio.HealthServicer, up: bool) -> None:
    """Every service is SERVING while the database answers, NOT_SERVING while it does not."""
    metrics.DATABASE_UP.set(1 if up else 0)
    status = (
        health_pb2.HealthCheckResponse.SERVING if up else health_pb2.HealthCheckResponse.NOT_SERVING
    )
    for name in (*SERVICE_NAMES, ""):
        await servicer.set(name, status)


STOP_SECONDS = 10.0
"""How long a signalled referee waits for its orderly stop (drain, leaving the cluster, the
server's grace) before it exits anyway."""


async def serve_until_signalled(running: RunningServer) -> None:
    """Run until SIGINT or SIGTERM, then stop gracefully."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("referee listening on port %s", running.port)
    await stop.wait()
    log.info("referee stopping")
    try:
        # Bounded: a drained referee must exit even if a peer service hangs on its way out
        # (the matches are released and the streams closed first; the rest is courtesy).
        await asyncio.wait_for(running.stop(), STOP_SECONDS)
    except TimeoutError:
        log.warning("referee stop took over %ss; exiting without waiting further", STOP_SECONDS)
