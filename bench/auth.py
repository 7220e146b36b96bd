"""Benchmark: what a password hash and an API-key check cost, each beside a same-run baseline.

1. hashing: argon2id at the parameters the arena uses (`arena.referee.keys`: m=46 MiB, t=1, p=1,
   OWASP's first recommended setting) per hash and per verify, against RFC 9106's low-memory
   option (t=3, m=64 MiB, p=4) and against the SHA-256 digest an API key is stored as: the ratio
   is how much more a guesser pays per password tried than per key tried;
2. key checks over gRPC: WhoAmI with an API key (the guard's key lookup and digest compare, then
   the account read: two queries) against ListBotVersions without a key (two queries) and
   ListGames (no query), on a real referee in this process.

Postgres is ARENA_DATABASE_URL's server (a throwaway database, dropped afterwards); without it,
part 2 is skipped.

    .venv/bin/python bench/auth.py [--hashes 10] [--calls 500]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

import grpc
import psycopg
from argon2 import PasswordHasher
from psycopg import sql
from psycopg.conninfo import make_conninfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.referee import keys  # noqa: E402
from arena.v1 import account_pb2, account_pb2_grpc, arena_pb2, arena_pb2_grpc  # noqa: E402


def _each(fn: object, n: int) -> float:
    """Median seconds of `n` calls of `fn`."""
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def hashing(n: int) -> None:
    password = "correct horse battery staple"
    chosen = keys.HASHER
    rfc = PasswordHasher(time_cost=3, memory_cost=64 * 1024, parallelism=4)
    stored = chosen.hash(password)
    key = keys.new_key()
    digest = keys.key_hash(key)
    chosen_hash = _each(lambda: chosen.hash(password), n)
    chosen_verify = _each(lambda: chosen.verify(stored, password), n)
    rfc_hash = _each(lambda: rfc.hash(password), n)
    sha = _each(lambda: keys.same_digest(hashlib.sha256(key.encode()).digest(), digest), 10_000)
    print("1. hashing (median of each)")
    print(
        f"   argon2id t={keys.ARGON2_TIME_COST} m={keys.ARGON2_MEMORY_KIB // 1024} MiB "
        f"p={keys.ARGON2_PARALLELISM}: hash {chosen_hash * 1000:.1f} ms, "
        f"verify {chosen_verify * 1000:.1f} ms"
    )
    print(
        f"   argon2id t=3 m=64 MiB p=4 (RFC 9106 low-memory, argon2-cffi default): hash "
        f"{rfc_hash * 1000:.1f} ms (chosen/RFC = {chosen_hash / rfc_hash:.2f}x)"
    )
    print(
        f"   API key check (SHA-256 + constant-time compare): {sha * 1e6:.2f} us "
        f"(password verify / key check = {chosen_verify / sha:,.0f}x)"
    )


async def _calls(url: str, n: int) -> tuple[float, float, float]:
    from arena.referee.app import Referee, RefereeConfig
    from arena.referee.server import create_server
    from arena.storage import Database

    db = await Database.open(url)
    await db.migrate()
    running = await create_server(Referee(db, RefereeConfig(host="bench")), "127.0.0.1:0")
    try:
        async with grpc.aio.insecure_channel(running.address) as channel:
            accounts = account_pb2_grpc.AccountServiceStub(channel)
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            made = await accounts.CreateAccount(account_pb2.CreateAccountRequest(name="bench"))
            metadata = (("authorization", f"Bearer {made.key.secret}"),)
            await api.RegisterBot(arena_pb2.RegisterBotRequest(name="b"), metadata=metadata)
            bot = account_pb2.BotRef(bot="b")
            calls = {
                "none": lambda: api.ListGames(arena_pb2.ListGamesRequest()),
                "reads": lambda: accounts.ListBotVersions(bot),
                "keyed": lambda: accounts.WhoAmI(account_pb2.WhoAmIRequest(), metadata=metadata),
            }
            took = {}
            for name, call in calls.items():
                for _ in range(20):  # warm up
                    await call()
                start = time.perf_counter()
                for _ in range(n):
                    await call()
                took[name] = (time.perf_counter() - start) / n
    finally:
        await running.stop()
        await db.close()
    return took["none"], took["reads"], took["keyed"]


def key_checks(n: int) -> None:
    server = os.environ.get("ARENA_DATABASE_URL")
    if not server:
        print("2. key checks: skipped (set ARENA_DATABASE_URL)")
        return
    admin = make_conninfo(server, dbname="postgres")
    name = f"arena_bench_{secrets.token_hex(4)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        bare, reads, keyed = asyncio.run(_calls(make_conninfo(server, dbname=name), n))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
    print(f"2. key checks over gRPC ({n} sequential calls each)")
    print(f"   ListGames, no key, no query: {bare * 1e6:.0f} us/call")
    print(f"   ListBotVersions, no key, two queries (baseline): {reads * 1e6:.0f} us/call")
    print(
        f"   WhoAmI with an API key, two queries (key lookup + account): {keyed * 1e6:.0f} us/call"
        f" (ratio {keyed / reads:.2f}x the baseline)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hashes", type=int, default=10, help="argon2 hashes timed (default 10)")
    parser.add_argument("--calls", type=int, default=500, help="RPCs timed per kind (default 500)")
    args = parser.parse_args()
    hashing(args.hashes)
    key_checks(args.calls)


if __name__ == "__main__":
    main()
