"""Benchmark: what the referee's limits save it and cost an attacker, against the limits lifted.

Three figures, each beside a baseline measured in the same run:

1. memory: a referee in a child process takes `--streams` concurrent unauthenticated Hellos, each
   carrying a `--token-kb` token; its peak and final RSS with the default limits, and with the
   limits lifted (64 MiB messages and Hellos), the old behaviour;
2. failed logins: how many bad Hellos one client gets checked in `--seconds`, default limits
   against a failed-login burst of 10^9;
3. recovery: seconds from Postgres coming back (a TCP proxy the benchmark stops and starts) to the
   first query that succeeds after a `--outage`-second outage, with the referee's probe against
   the connection pool alone.

Postgres is ARENA_DATABASE_URL's server (a throwaway database, dropped afterwards).

    .venv/bin/python bench/limits.py [--streams 150] [--token-kb 1024] [--outage 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import secrets
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import grpc
import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.referee.limits import Limits, Rate  # noqa: E402
from arena.storage import Database, Unavailable  # noqa: E402
from arena.storage.probe import DatabaseProbe  # noqa: E402
from arena.v1 import bot_pb2  # noqa: E402
from tests.storage.tcp_proxy import TcpProxy  # noqa: E402

LIFTED = Limits(
    max_message_bytes=64 << 20,
    max_hello_bytes=64 << 20,
    max_token_chars=64 << 20,
    failed_logins=Rate(burst=10**9, every=timedelta(seconds=1)),
)


def server_url() -> str:
    url = os.environ.get("ARENA_DATABASE_URL")
    if not url:
        raise SystemExit("set ARENA_DATABASE_URL to a Postgres server")
    return url


def create_database() -> str:
    name = f"arena_bench_{secrets.token_hex(4)}"
    with psycopg.connect(make_conninfo(server_url(), dbname="postgres"), autocommit=True) as c:
        c.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return make_conninfo(server_url(), dbname=name)


def drop_database(url: str) -> None:
    name = psycopg.conninfo.conninfo_to_dict(url)["dbname"]
    with psycopg.connect(make_conninfo(server_url(), dbname="postgres"), autocommit=True) as c:
        c.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(str(name)))
        )


# -- the referee child ----------------------------------------------------------------------------
async def serve(url: str, lifted: bool) -> None:
    from arena.referee.app import Referee, RefereeConfig
    from arena.referee.server import create_server

    db = await Database.open(url)
    await db.migrate()
    config = RefereeConfig(admin_token="bench", limits=LIFTED if lifted else Limits())
    running = await create_server(Referee(db, config), "127.0.0.1:0")
    print(running.port, flush=True)
    await asyncio.Event().wait()


def memory_kb(pid: int) -> tuple[int, int]:
    """(peak, current) resident memory of a process in KiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return int(fields["VmHWM"].split()[0]), int(fields["VmRSS"].split()[0])


def play(channel: grpc.aio.Channel) -> grpc.aio.StreamStreamMultiCallable:
    return channel.stream_stream(
        "/arena.v1.BotService/Play",
        request_serializer=None,
        response_deserializer=bot_pb2.ArenaMessage.FromString,
    )


async def flood_hellos(address: str, streams: int, token_bytes: int) -> dict[str, int]:
    """Open `streams` streams at once, each sending one huge Hello; count the answers."""
    hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token="x" * token_bytes)).SerializeToString()
    codes: dict[str, int] = {}
    options = [("grpc.max_send_message_length", -1)]
    async with grpc.aio.insecure_channel(address, options=options) as channel:

        async def one() -> None:
            call = play(channel)(iter([hello]))
            try:
                async for _ in call:
                    pass
                code = "OK"
            except grpc.aio.AioRpcError as exc:
                code = exc.code().name
            codes[code] = codes.get(code, 0) + 1

        await asyncio.gather(*(one() for _ in range(streams)))
    return codes


async def bad_logins(address: str, seconds: float) -> dict[str, int]:
    """Bad Hellos one after another for `seconds`: how each was answered."""
    codes: dict[str, int] = {}
    until = time.monotonic() + seconds
    async with grpc.aio.insecure_channel(address) as channel:
        n = 0
        while time.monotonic() < until:
            n += 1
            token = f"arena_guess{n:08d}"
            hello = bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token)).SerializeToString()
            try:
                async for _ in play(channel)(iter([hello])):
                    pass
                code = "OK"
            except grpc.aio.AioRpcError as exc:
                code = exc.code().name
            codes[code] = codes.get(code, 0) + 1
    return codes


def referee_run(url: str, lifted: bool, args: argparse.Namespace) -> dict[str, object]:
    child = subprocess.Popen(
        [sys.executable, __file__, "--serve", url, *(["--lifted"] if lifted else [])],
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        address = f"127.0.0.1:{port}"
        _, before = memory_kb(child.pid)
        began = time.monotonic()
        codes = asyncio.run(flood_hellos(address, args.streams, args.token_kb * 1024))
        flood_seconds = time.monotonic() - began
        time.sleep(1.0)
        peak, after = memory_kb(child.pid)
        logins = asyncio.run(bad_logins(address, args.seconds))
        return {
            "rss_before_mb": before / 1024,
            "rss_peak_mb": peak / 1024,
            "rss_after_mb": after / 1024,
            "flood_codes": codes,
            "flood_seconds": flood_seconds,
            "logins": logins,
        }
    finally:
        child.kill()
        child.wait()


# -- recovery after an outage ---------------------------------------------------------------------
async def recovery(url: str, outage: float, probed: bool) -> float:
    """Seconds from the database coming back to the first successful query."""
    proxy = TcpProxy(url)
    await proxy.start()
    db = await Database.open(proxy.url, max_size=2)
    probe = DatabaseProbe(db) if probed else None
    if probe is not None:
        probe.start()
    try:
        await db.list_bots()
        await proxy.stop()
        gone = time.monotonic() + outage
        while time.monotonic() < gone:  # the referee keeps trying, as matches do
            with contextlib.suppress(Unavailable):
                await db.list_bots()
            await asyncio.sleep(0.2)
        await proxy.start()
        back = time.monotonic()
        while True:
            try:
                await db.list_bots()
                return time.monotonic() - back
            except Unavailable:
                await asyncio.sleep(0.05)
    finally:
        if probe is not None:
            await probe.stop()
        await db.close()
        await proxy.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=150)
    parser.add_argument("--token-kb", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--outage", type=float, default=10.0)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--lifted", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve, args.lifted))
        return
    url = create_database()
    try:
        runs = {name: referee_run(url, name == "lifted", args) for name in ("lifted", "limited")}
        print(f"{args.streams} concurrent Hellos with a {args.token_kb} KiB token each:")
        for name, run in runs.items():
            print(
                f"  {name:8} RSS {run['rss_before_mb']:7.1f} MiB before, peak "
                f"{run['rss_peak_mb']:7.1f}, after {run['rss_after_mb']:7.1f}; "
                f"answers {run['flood_codes']} in {run['flood_seconds']:.1f}s"
            )
        growth = {n: float(r["rss_peak_mb"]) - float(r["rss_before_mb"]) for n, r in runs.items()}  # type: ignore[arg-type]
        print(
            f"  peak growth: lifted {growth['lifted']:.1f} MiB, limited {growth['limited']:.1f} "
            f"MiB, ratio {growth['lifted'] / max(growth['limited'], 0.1):.1f}x"
        )
        print(f"bad Hellos from one client in {args.seconds:g}s:")
        for name, run in runs.items():
            print(f"  {name:8} {run['logins']}")
        print(f"recovery after a {args.outage:g}s Postgres outage (seconds after it returns):")
        pooled = asyncio.run(recovery(url, args.outage, probed=False))
        probed = asyncio.run(recovery(url, args.outage, probed=True))
        print(
            f"  pool alone {pooled:.2f}s, with the probe {probed:.2f}s, ratio "
            f"{pooled / max(probed, 0.01):.1f}x"
        )
    finally:
        drop_database(url)


if __name__ == "__main__":
    main()
