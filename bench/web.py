"""Benchmark: a crowd on `arena web`: every page and API under N concurrent requests.

It stores, in a throwaway database (ARENA_DATABASE_URL's server, or an embedded Postgres), a
finished Double Crossing match of about 1,000 decisions (6 heuristic bots), a finished Hart
match, a running Crossing match and a running tournament; starts `arena web` on them (with
`--workers N` when given) and sends each route `--rounds` waves of `--concurrency` requests at
once, every one on its own connection and asking for gzip, as browsers do. It prints, per route,
the errors (anything but 200/304, or no answer), p50, p99, the bytes of one answer, and each p50
as a ratio to `/healthz`'s p50 measured in the same run (a wave of /healthz before each wave of
the route, so that both see the machine's load of the same moment).
Goal: 0 errors and every p50 within 4x healthz.

    .venv/bin/python bench/web.py [--concurrency 200] [--rounds 3] [--workers 2]
    .venv/bin/python bench/web.py --url http://127.0.0.1:8080 --finished 18 --running 19 \
        [--tournament 1] [--bot alice]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.ops.ports import free_port
from arena.referee.clock import Clock
from arena.sdk.bots import strategy
from arena.sdk.local import play_local
from arena.storage import Database
from arena.storage.embedded import EmbeddedPostgres
from arena.tournament import rounds as tournaments
from tests.dbfixtures import create_database, drop_database, migrate_database, with_database
from tests.web.seed import register, store_match

BOTS = [f"crowd-{i}" for i in range(6)]
TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class World:
    """The ids the routes are built from."""

    finished: int
    running: int
    running_steps: int
    tournament: int
    bot: str


@dataclass(frozen=True, slots=True)
class Figures:
    """One route's results, and /healthz's in the waves between them."""

    path: str
    errors: int
    p50: float
    p99: float
    size: int
    statuses: str
    healthz_p50: float
    healthz_errors: int

    @property
    def ratio(self) -> float:
        """This route's p50 over /healthz's p50 in the interleaved waves."""
        return self.p50 / self.healthz_p50


def long_crossing_seed(lo: int = 950, hi: int = 1100) -> int:
    """The first seed whose 6-seat heuristic Crossing match lasts lo..hi decisions."""
    for seed in range(1, 500):
        played = play_local("crossing", [strategy("crossing", "heuristic")] * 6, seed)
        if lo <= len(played.record.moves) <= hi:
            return seed
    raise SystemExit("no Crossing seed of about 1,000 decisions in 1..499")


async def seed_world(url: str) -> World:
    """Store the matches and the tournament the routes read."""
    async with await Database.open(url) as db:
        ids = await register(db, BOTS)
        bots = list(ids.items())
        long = await store_match(db, "crossing", bots, long_crossing_seed())
        await store_match(db, "hart", bots[:4], 11)
        running = await store_match(db, "crossing", bots[:4], 7, keep=120)
        tid = await tournaments.create_tournament(
            db,
            name="crowd cup",
            game="hart",
            bot_names=BOTS[:4],
            table_size=4,
            rounds=2,
            clock=Clock(),
        )
        await tournaments.start(db, tid)
        print(
            f"stored: crossing match {long.match_id} of {long.decisions} decisions (finished), "
            f"crossing match {running.match_id} (running, {running.decisions} decisions), "
            f"tournament {tid}",
            flush=True,
        )
        return World(long.match_id, running.match_id, running.decisions + 1, tid, BOTS[0])


def routes(w: World) -> list[str]:
    """Every page and API route, with the live poll a spectator's viewer sends."""
    m, r = w.finished, w.running
    return [
        "/",
        "/api/home",
        f"/matches/{m}",
        f"/api/matches/{m}",
        f"/api/matches/{m}/replay",
        f"/api/matches/{m}/steps?limit=500",
        f"/api/matches/{m}/steps?from=500&limit=500",
        f"/api/matches/{r}/steps?from={w.running_steps}",
        f"/matches/{r}",
        "/leaderboard/crossing",
        "/api/leaderboard/crossing",
        f"/bots/{w.bot}",
        f"/api/bots/{w.bot}",
        f"/tournaments/{w.tournament}",
        f"/api/tournaments/{w.tournament}",
        "/api/matches?status=finished",
        "/api",
        "/api/openapi.json",
        "/static/viewer.js",
    ]


Result = tuple[int, int, float]
"""(status, body bytes, seconds) of one request."""


async def fetch(host: str, port: int, path: str) -> Result:
    """One GET on its own connection: (status, body bytes, seconds); status 0 if none came."""
    began = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), TIMEOUT)
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept-Encoding: gzip\r\n"
            "Connection: close\r\n\r\n"
        )
        writer.write(request.encode())
        raw = await asyncio.wait_for(reader.read(-1), TIMEOUT)
        writer.close()
    except (OSError, TimeoutError):
        return 0, 0, time.perf_counter() - began
    elapsed = time.perf_counter() - began
    head, _, body = raw.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    return status, len(body), elapsed


def _wave(path: str, host: str, port: int, n: int) -> Awaitable[list[Result]]:
    return asyncio.gather(*(fetch(host, port, path) for _ in range(n)))


async def measure(host: str, port: int, path: str, concurrency: int, rounds: int) -> Figures:
    """`rounds` waves of `concurrency` requests at once (after one warm-up request), each after
    a wave of /healthz: on a machine whose load drifts, the pair shares the same moment."""
    await fetch(host, port, path)
    results: list[Result] = []
    health: list[Result] = []
    for _ in range(rounds):
        health += await _wave("/healthz", host, port, concurrency)
        results += await _wave(path, host, port, concurrency)
    times = sorted(t for _, _, t in results)
    bad = [s for s, _, _ in results if s not in (200, 304)]
    statuses = ", ".join(f"{bad.count(s)}x{s}" for s in sorted(set(bad)))
    size = max((n for s, n, _ in results if s == 200), default=0)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    health_p50 = statistics.median(t for _, _, t in health)
    health_bad = sum(1 for s, _, _ in health if s != 200)
    return Figures(
        path, len(bad), statistics.median(times), p99, size, statuses, health_p50, health_bad
    )


async def crowd(base: str, w: World, concurrency: int, rounds: int) -> None:
    """Measure every route and print the table."""
    split = urlsplit(base)
    host, port = split.hostname or "127.0.0.1", split.port or 80
    figures = [await measure(host, port, p, concurrency, rounds) for p in routes(w)]
    print(
        f"\n{concurrency} concurrent requests x {rounds} waves per route, each wave after one "
        "of /healthz; p50/hz is the route's p50 over those /healthz waves' p50"
    )
    head = f"{'route':44} {'errors':>6} {'p50 ms':>7} {'p99 ms':>7} {'bytes':>8} {'hz p50':>7}"
    print(f"{head} {'p50/hz':>7}")
    for f in figures:
        print(
            f"{f.path[:44]:44} {f.errors:>6} {f.p50 * 1000:>7.0f} {f.p99 * 1000:>7.0f} "
            f"{f.size:>8} {f.healthz_p50 * 1000:>7.0f} {f.ratio:>6.1f}x {f.statuses}"
        )
    errors = sum(f.errors + f.healthz_errors for f in figures)
    worst = max(figures, key=lambda f: f.ratio)
    print(
        f"total errors {errors} (healthz {sum(f.healthz_errors for f in figures)}); worst p50 "
        f"ratio {worst.ratio:.1f}x ({worst.path}); goal: 0 errors, every ratio <= 4x"
    )


def start_web(url: str, workers: int | None) -> tuple[subprocess.Popen[bytes], str]:
    """`arena web` on a free port over database `url`, once it answers /healthz."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "arena.cli.main",
        "web",
        "--port",
        str(port),
        "--metrics-port",
        "-1",
        "--spectator-delay",
        "0",
    ]
    if workers:
        command += ["--workers", str(workers)]
    env = {**os.environ, "ARENA_DATABASE_URL": url}
    server = subprocess.Popen(command, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("arena web did not start within 60 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="waves per route (default 3)")
    parser.add_argument("--workers", type=int, default=None, help="`arena web --workers N`")
    parser.add_argument("--url", help="a running arena web instead of a throwaway one")
    parser.add_argument("--finished", type=int, help="with --url: a finished match's id")
    parser.add_argument("--running", type=int, help="with --url: a running match's id")
    parser.add_argument("--tournament", type=int, default=1, help="with --url: a tournament id")
    parser.add_argument("--bot", default="alice", help="with --url: a bot's name")
    args = parser.parse_args()
    if args.url:
        if args.finished is None or args.running is None:
            parser.error("--url needs --finished and --running")
        w = World(args.finished, args.running, 0, args.tournament, args.bot)
        asyncio.run(crowd(args.url, w, args.concurrency, args.rounds))
        return
    folder = None
    embedded = None
    server_url = os.environ.get("ARENA_DATABASE_URL")
    if server_url:
        server_url = with_database(server_url, "postgres")
    else:
        folder = Path(tempfile.mkdtemp(prefix="arena-bench-web-"))
        folder.chmod(0o755)
        embedded = EmbeddedPostgres(folder, database="postgres", fsync=False)
        server_url = embedded.start()
    url = create_database(server_url)
    web = None
    try:
        migrate_database(url)
        w = asyncio.run(seed_world(url))
        web, base = start_web(url, args.workers)
        asyncio.run(crowd(base, w, args.concurrency, args.rounds))
    finally:
        if web is not None:
            web.terminate()
            web.wait(timeout=30)
        drop_database(server_url, url)
        if embedded is not None:
            embedded.stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
