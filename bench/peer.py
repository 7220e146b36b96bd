"""Benchmark: Arena's referee side by side with a boardgame.io 0.50 server, in one run.

    .venv/bin/python bench/peer.py [--runs 3] [--matches 8,64]

Three servers, each driven by K concurrent 4-player matches whose clients answer at once:

- **Arena**: one `arena serve` process (bench/referees.py's fleet of one) over a throwaway
  Postgres database (ARENA_DATABASE_URL's server, else the embedded one), playing Hart; every
  decision is durable in Postgres before the next request goes out. The bots are instant random
  bots in one child process, over loopback gRPC.
- **boardgame.io, in memory**: `bench/peer/server.js`, boardgame.io's own Koa + socket.io server,
  playing the trivial card game of `bench/peer/game.js` (32 cards per player, one card per turn,
  128 moves a match, hands secret), its matches in boardgame.io's in-memory store.
- **boardgame.io, FlatFile**: the same, with boardgame.io's FlatFile storage (node-persist files).

The boardgame.io clients are boardgame.io's own (`boardgame.io/client` over socket.io), all in one
Node process (`bench/peer/driver.js`); boardgame.io and node-persist are installed by this
benchmark into bench/peer/node_modules (ignored by git; never a dependency of Arena).

Runs alternate: each run plays every K on every server, in the reverse order of the previous run.
Printed per run and as medians over the runs: moves/s (Arena: decisions applied / the wall time
from creating the batch to its last match ending; boardgame.io: moves / the first move to the
last game over, connections made beforehand), the cycle (a move sent to the next asked player
seeing its request, timed in the clients' process: one machine, one clock) p50 and p99, and the
server's CPU microseconds per move (the server process alone; Arena's Postgres backends beside
it). Then Arena's ratios to each boardgame.io mode. A loaded machine (other work on its cores)
lowers every figure; the load average is printed first, and the ratios of one run are the
figures to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg

from arena.ops.ports import free_port
from arena.v1 import bot_pb2
from bench import referees
from bench.harness import percentile

PEER = Path(__file__).resolve().parent / "peer"
BOARDGAME_IO = "0.50.2"
"""The version bench/peer/package.json pins."""
SYSTEMS = ("arena", "bgio-memory", "bgio-flatfile")
TITLES = {
    "arena": "Arena referee, Hart, durable in Postgres",
    "bgio-memory": f"boardgame.io {BOARDGAME_IO}, card game, in memory",
    "bgio-flatfile": f"boardgame.io {BOARDGAME_IO}, card game, FlatFile",
}


@dataclass(frozen=True, slots=True)
class Result:
    """One server driven by K matches once."""

    moves: int
    seconds: float
    cycles_ms: list[float]
    server_cpu: float
    """CPU seconds of the server process during the run."""
    postgres_cpu: float = 0.0

    @property
    def rate(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0

    def cpu_us(self, seconds: float) -> float:
        return seconds * 1e6 / self.moves if self.moves else 0.0


# -- boardgame.io ---------------------------------------------------------------------------------
def install() -> None:
    """Install boardgame.io (and node-persist) into bench/peer/node_modules unless it is there."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("bench/peer.py needs node and npm on PATH")
    installed = PEER / "node_modules" / "boardgame.io" / "package.json"
    persist = PEER / "node_modules" / "node-persist"
    version = json.loads(installed.read_text())["version"] if installed.exists() else ""
    if version == BOARDGAME_IO and persist.exists():
        return
    print(f"installing boardgame.io {BOARDGAME_IO} into {PEER / 'node_modules'} ...", flush=True)
    subprocess.run(
        ["npm", "install", "--no-fund", "--no-audit", "--no-package-lock"],
        cwd=PEER,
        check=True,
        stdout=subprocess.DEVNULL,
    )


@contextlib.contextmanager
def peer_server(storage: str) -> Iterator[tuple[str, int]]:
    """A boardgame.io server with `storage` ("memory" or "flatfile"): (its URL, its pid)."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="bgio-") as folder:
        server = subprocess.Popen(
            ["node", "server.js", str(port), storage, folder],
            cwd=PEER,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert server.stdout is not None
            if server.stdout.readline().strip() != b"ready":
                raise SystemExit(f"the boardgame.io server ({storage}) did not start")
            yield f"http://127.0.0.1:{port}", server.pid
        finally:
            server.kill()
            server.wait()


def run_peer(url: str, pid: int, k: int) -> Result:
    """K matches through the boardgame.io server at `url` (process `pid`)."""
    driver = subprocess.Popen(
        ["node", "driver.js", url, str(k)],
        cwd=PEER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert driver.stdin is not None and driver.stdout is not None
    try:
        if not json.loads(driver.stdout.readline() or b"{}").get("ready"):
            raise SystemExit("the boardgame.io clients did not connect")
        before = referees.cpu_seconds(pid)
        driver.stdin.write(b"go\n")
        driver.stdin.flush()
        report = json.loads(driver.stdout.readline() or b"{}")
        spent = referees.cpu_seconds(pid) - before
    finally:
        driver.kill()
        driver.wait()
    if not report:
        raise SystemExit("the boardgame.io clients did not finish")
    return Result(report["moves"], report["seconds"], report["cycles"], spent)


# -- Arena ----------------------------------------------------------------------------------------
def run_arena(fleet: referees.Fleet, k: int, label: str, timeout: float) -> Result:
    """K Hart matches through the fleet's one referee."""
    seeds = list(range(1, k + 1))
    phase = asyncio.run(
        referees.play(
            *(fleet, label, "hart", 4, [seeds], lambda i, s: 0, lambda i: 0),
            *(bot_pb2.PAYLOAD_FORM_JSON, timeout),
        )
    )
    if phase.aborted:
        raise SystemExit(f"{phase.aborted} Arena matches were aborted")
    cycles = [c * 1000 for c in phase.cycles]
    cpu = phase.cpu
    return Result(phase.decisions, phase.seconds, cycles, cpu["referees"], cpu["postgres"])


def durability(database_url: str) -> str:
    """What Postgres promises of a commit on this server."""
    with psycopg.connect(database_url) as conn:
        fsync = conn.execute("SHOW fsync").fetchone()
        commit = conn.execute("SHOW synchronous_commit").fetchone()
    return f"fsync={fsync[0] if fsync else '?'}, synchronous_commit={commit[0] if commit else '?'}"


# -- report ---------------------------------------------------------------------------------------
def line(system: str, k: int, result: Result) -> str:
    c = result.cycles_ms
    p50, p99 = (percentile(c, 0.5), percentile(c, 0.99)) if c else (0.0, 0.0)
    extra = f" (+ Postgres {result.cpu_us(result.postgres_cpu):,.0f})" if system == "arena" else ""
    return (
        f"  {system:<14} K={k:<3} {result.moves:>6,} moves in {result.seconds:6.2f}s = "
        f"{result.rate:7,.0f} moves/s; cycle p50 {p50:6.2f} ms, p99 {p99:6.2f} ms; server CPU "
        f"{result.cpu_us(result.server_cpu):,.0f} us/move{extra}"
    )


def summary(results: dict[tuple[str, int], list[Result]], ks: list[int]) -> None:
    runs = len(next(iter(results.values())))
    print(f"\nmedians over {runs} run{'s' if runs > 1 else ''}:")
    heads = [*(f"moves/s K={k}" for k in ks), f"p50/p99 ms K={ks[-1]}", f"CPU us/move K={ks[-1]}"]
    print("| | " + " | ".join(heads) + " |")
    print("| --- |" + " --- |" * (len(ks) + 2))
    medians: dict[tuple[str, int], tuple[float, float, float, float]] = {}
    for (system, k), done in results.items():
        medians[(system, k)] = (
            statistics.median(r.rate for r in done),
            statistics.median(percentile(r.cycles_ms, 0.5) for r in done),
            statistics.median(percentile(r.cycles_ms, 0.99) for r in done),
            statistics.median(r.cpu_us(r.server_cpu) for r in done),
        )
    for system in SYSTEMS:
        rates = " | ".join(f"{medians[(system, k)][0]:,.0f}" for k in ks)
        _, p50, p99, cpu = medians[(system, ks[-1])]
        print(f"| {TITLES[system]} | {rates} | {p50:.2f} / {p99:.2f} | {cpu:,.0f} |")
    print()
    for peer in SYSTEMS[1:]:
        for k in ks:
            arena, other = medians[("arena", k)], medians[(peer, k)]
            ratio = arena[0] / other[0] if other[0] else 0.0
            lower = "lower" if arena[2] < other[2] else "higher"
            print(
                f"Arena / {peer} at K={k}: {ratio:.2f}x the moves/s; p99 {arena[2]:.2f} ms vs "
                f"{other[2]:.2f} ms ({lower}); CPU per move {arena[3] / other[3]:.2f}x"
                if other[3]
                else f"Arena / {peer} at K={k}: {ratio:.2f}x the moves/s"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="alternating runs (default 3)")
    parser.add_argument(
        "--matches", default="8,64", help="concurrent matches, comma-separated (default 8,64)"
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds an Arena batch may take"
    )
    args = parser.parse_args(argv)
    try:
        ks = [int(k) for k in args.matches.split(",")]
    except ValueError:
        parser.error(f"--matches takes numbers separated by commas, not {args.matches!r}")
    if args.runs < 1 or not ks or min(ks) < 1:
        parser.error("--runs and every --matches value must be at least 1")
    install()
    print(__doc__.split("\n\n")[0])
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before the run: {load} on {os.cpu_count()} cores")
    results: dict[tuple[str, int], list[Result]] = {(s, k): [] for s in SYSTEMS for k in ks}
    with (
        referees.running_fleet(1) as (fleet, where),
        peer_server("memory") as memory,
        peer_server("flatfile") as flatfile,
    ):
        promise = durability(fleet.database_url)
        print(f"Arena: one referee over a throwaway database on {where} ({promise})")
        peers = {"bgio-memory": memory, "bgio-flatfile": flatfile}
        for run in range(args.runs):
            order = SYSTEMS if run % 2 == 0 else SYSTEMS[::-1]
            print(f"\nrun {run + 1} of {args.runs} ({', '.join(order)}):")
            for k in ks:
                for system in order:
                    if system == "arena":
                        result = run_arena(fleet, k, f"peer{run}k{k}", args.timeout)
                    else:
                        result = run_peer(*peers[system], k)
                    results[(system, k)].append(result)
                    print(line(system, k, result), flush=True)
    summary(results, ks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
