"""Benchmark: 1,000 concurrent live spectators of one running match, pushed by Server-Sent Events.

A real `arena web` process (its own Python, as deployed) serves a Hart match whose decisions this
script logs one by one in Postgres, publishing the referee's step news on Redis after each (the
bytes `arena.referee.step_news` gives the referee's relay). `--subscribers` raw-socket SSE
clients (1,000 by default) follow the match on loopback. Printed: how many (step, subscriber)
deliveries arrived, their latency after the step's release (logged + spectator delay; the bound
is 1 s), the web process's CPU per delivered step and per released step, its RSS before, at peak
and after, and, as the same-run baseline, the web process's CPU for one `/steps` poll request
(what each spectator's browser sent every second before the push).

Postgres: ARENA_DATABASE_URL's server (a throwaway database) or an embedded one; Redis:
ARENA_REDIS_URL or an embedded one. Bounded: `--steps` steps at `--interval`, then the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis.asyncio as aioredis

import engines
from arena.ops.ports import free_port
from arena.ops.services import redis_url
from arena.referee import step_news
from arena.storage import Database
from arena.storage.embedded import EmbeddedPostgres
from arena.storage.identity import arena_identity
from arena.storage.rows import DecisionRow, SeatResult
from engines.driver import MatchDriver
from tests.dbfixtures import create_database, drop_database, migrate_database, with_database
from tests.web.seed import register, store_match
from tests.web.sse import events

DELAY = 0.5
"""The web process's spectator delay, in seconds."""


def cpu_seconds(pid: int) -> float:
    """User + system CPU of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def more_files() -> None:
    """Raise this process's open-file limit to its hard limit (a socket per subscriber)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def seed(url: str, steps: int) -> tuple[int, list[DecisionRow], Any, str]:
    """A started Hart match with no decision logged yet, its decisions to log, its outcome."""
    async with await Database.open(url) as db:
        ids = await register(db, [f"live-bench-{i}" for i in range(4)])
        stored = await store_match(db, "hart", list(ids.items()), 3, keep=0)
        rules = engines.get("hart")
        driver: MatchDriver[Any, Any] = MatchDriver(rules, 4, {}, 3)
        rows: list[DecisionRow] = []
        while (decision := driver.decision) is not None and len(rows) < steps:
            for seat in sorted(decision.seats):
                driver.answer(seat, decision.number, driver.space(seat).default())
            driver.advance()
            joint = dict(driver.moves[-1])
            rows.append(DecisionRow(stored.match_id, decision.number, decision.label, joint, {}))
        return stored.match_id, rows, rules.outcome(driver.state), await arena_identity(db.pool)


async def subscriber(port: int, match_id: int, got: dict[int, float]) -> None:
    """Follow the live stream to its end; `got` maps each step to when it arrived."""
    async for event in events("127.0.0.1", port, f"/api/matches/{match_id}/live", decode=False):
        if event.event == "step" and event.id is not None:
            got[event.id] = time.time()


async def run(args: argparse.Namespace, url: str, redis: str) -> None:
    match_id, rows, outcome, namespace = await seed(url, args.steps)
    port = free_port()
    env = {**os.environ, "ARENA_DATABASE_URL": url, "ARENA_REDIS_URL": redis}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    command = [sys.executable, "-m", "arena.cli.main", "web", "--port", str(port)]
    command += ["--metrics-port", "-1", "--spectator-delay", str(DELAY)]
    web = subprocess.Popen(command, env=env, preexec_fn=more_files, stderr=subprocess.PIPE)
    news = aioredis.Redis.from_url(redis)
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        rss_before = rss_mb(web.pid)
        got: list[dict[int, float]] = [{} for _ in range(args.subscribers)]
        watchers = [asyncio.create_task(subscriber(port, match_id, g)) for g in got]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and sum(1 for g in got if 0 in g) < len(got):
            await asyncio.sleep(0.2)  # every subscriber connected and has the setup
        connected = sum(1 for g in got if 0 in g)
        failed = [w for w in watchers if w.done() and w.exception() is not None]
        if failed:
            print(f"  {len(failed)} subscribers failed, e.g. {failed[0].exception()}")
        peak = rss_mb(web.pid)
        cpu_start = cpu_seconds(web.pid)
        client_start = time.process_time()
        released: dict[int, float] = {}
        async with await Database.open(url) as db:
            for row in rows:
                await db.record_decision(row)
                released[row.number + 1] = time.time() + DELAY
                channel = step_news.channel(namespace, match_id)
                await news.publish(channel, step_news.encode(match_id, row.number))
                await asyncio.sleep(args.interval)
                peak = max(peak, rss_mb(web.pid))
            await asyncio.sleep(DELAY + 1.5)
            cpu_steps = cpu_seconds(web.pid) - cpu_start
            client_cpu = time.process_time() - client_start
            ranks = outcome.ranks if outcome else (1, 2, 3, 4)
            scores = outcome.scores if outcome else (0, 0, 0, 0)
            results = [SeatResult(ranks[i], scores[i], 0) for i in range(4)]
            termination = outcome.termination if outcome else engines.Termination.COMPLETED
            await db.finish_match(match_id, termination, results)
            await news.publish(
                step_news.channel(namespace, match_id),
                step_news.encode(match_id, rows[-1].number, True),
            )
            await asyncio.wait_for(asyncio.gather(*watchers, return_exceptions=True), 60)
            await asyncio.sleep(2)
            rss_after = rss_mb(web.pid)
            # The same-run baseline: what one polling spectator cost per request.
            polls = 100
            poll_start = cpu_seconds(web.pid)
            for _ in range(polls):
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(
                    f"GET /api/matches/{match_id}/steps?from={len(rows)} HTTP/1.1\r\n"
                    "Host: x\r\nConnection: close\r\n\r\n".encode()
                )
                await reader.read()
                writer.close()
            poll_cpu = (cpu_seconds(web.pid) - poll_start) / polls
        latencies = [at - released[step] for g in got for step, at in g.items() if step in released]
        expected = len(rows) * args.subscribers
        late = sum(1 for x in latencies if x > 1.0)
        per_delivery = cpu_steps / max(len(latencies), 1)
        print(f"{args.subscribers} subscribers ({connected} connected), {len(rows)} steps")
        print(f"  delivered {len(latencies)}/{expected} (step, subscriber) pairs; {late} after 1 s")
        if latencies:
            q = statistics.quantiles(latencies, n=100)
            print(
                f"  latency after release: p50 {q[49] * 1000:.0f} ms, p99 {q[98] * 1000:.0f} ms, "
                f"max {max(latencies) * 1000:.0f} ms"
            )
        firsts = [
            min(g[step] for g in got if step in g) - at
            for step, at in released.items()
            if any(step in g for g in got)
        ]
        if firsts:
            print(
                f"  first subscriber to get a step: p50 {statistics.median(firsts) * 1000:.0f} ms "
                f"after release (the feed: news, one read, one encoding)"
            )
        print(
            f"  web CPU: {per_delivery * 1e6:.1f} us per delivered step, "
            f"{cpu_steps / len(rows) * 1000:.1f} ms per released step ({cpu_steps:.2f} s total)"
        )
        print(f"  this script's CPU meanwhile (its {args.subscribers} clients): {client_cpu:.2f} s")
        print(f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(
            f"  web RSS: before {rss_before:.0f} MB, peak {peak:.0f} MB, after {rss_after:.0f} MB"
        )
        print(f"  baseline, one /steps poll request: {poll_cpu * 1e6:.0f} us of web CPU")
        print(f"  ratio: a poll request costs {poll_cpu / per_delivery:.0f}x a pushed step")
    finally:
        await news.aclose()
        web.terminate()
        try:
            web.wait(15)
        except subprocess.TimeoutExpired:
            web.kill()
            web.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--interval", type=float, default=0.1, help="seconds between steps")
    args = parser.parse_args()
    more_files()
    folder = None
    embedded = None
    server = os.environ.get("ARENA_DATABASE_URL")
    if server:
        server = with_database(server, "postgres")
    else:
        folder = Path(tempfile.mkdtemp(prefix="arena-bench-live-"))
        folder.chmod(0o755)
        embedded = EmbeddedPostgres(folder, database="postgres", fsync=False)
        server = embedded.start()
    url = create_database(server)
    try:
        migrate_database(url)
        asyncio.run(run(args, url, os.environ.get("ARENA_REDIS_URL") or redis_url()))
    finally:
        drop_database(server, url)
        if embedded is not None:
            embedded.stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
