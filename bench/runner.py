"""Benchmark: hosted bots in the sandbox against the same bot run directly, on a real referee.

One run prints:
- upload to connected: from the hosted version's commit to the bot listed as connected, with an
  in-process Runner (tick 1 s) picking it up, unpacking, starting bwrap and the SDK connecting;
- hosted against direct: hart matches of examples/python-bot/my_bot.py in all four seats, the
  bots run (a) directly as processes on TCP and (b) sandboxed through the runner's Unix-socket
  forwarding, both sets connected throughout, in `--rounds` alternating rounds of `--matches`
  matches each (direct first in odd rounds, hosted first in even ones): the median decisions/s
  of each, the sandbox's cost as a ratio of the medians, and the referee-added p99 of each: the
  p99 over their decisions of the round trip the referee measures for a decision (request sent
  to answer in: the transport, for hosted the socket forwarding, and the bot's own work);
- idle hosted bots one runner keeps playing: always-on hosted bots given to one Runner in steps
  up to `--idle` (the goal is 50); at each step every bot is connected, stays connected on one
  stream for `--hold` seconds with no restart, and four of them then play a hart match with no
  strike; the memory per bot (the runner's cgroups, summed, over the bots).

    .venv/bin/python bench/runner.py [--rounds 3] [--matches 2] [--idle 50] [--hold 10]

Uses a throwaway database on ARENA_DATABASE_URL's server (else the embedded one), dropped after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from tempfile import TemporaryDirectory

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# The referee runs in this process, which also starts the bots' processes: gRPC's fork handlers
# would otherwise close the referee's sockets under a fork.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

from prometheus_client import REGISTRY

from arena.hosting.archive import pack
from arena.hosting.runner import Runner
from arena.hosting.runtime import detect
from arena.hosting.sandbox import SandboxSpec, find_bwrap
from arena.hosting.session import Session
from arena.hosting.supervisor import Placement
from arena.referee.limits import Limits, Rate
from arena.storage import Database
from arena.storage.hosted import Hosted
from arena.storage.runners import Runners
from arena.v1 import arena_pb2
from bench.harness import ms, percentile, throwaway_database
from tests.referee.harness import (
    create_match,
    register,
    running_referee,
    stub,
    wait_finished,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "python-bot" / "my_bot.py"


async def _connected(address: str) -> set[str]:
    channel, api = stub(address)
    async with channel:
        return {b.name for b in (await api.ListBots(arena_pb2.ListBotsRequest())).bots}


async def _until_connected(address: str, names: set[str], timeout: float = 120) -> float:
    start = time.monotonic()
    while not names <= await _connected(address):
        if time.monotonic() - start > timeout:
            raise TimeoutError(f"{names - await _connected(address)} did not connect")
        await asyncio.sleep(0.05)
    return time.monotonic() - start


async def _bot_id(db: Database, name: str) -> int:
    async with db.pool.connection("bot id") as conn:
        row = await (await conn.execute("SELECT id FROM bots WHERE name = %s", [name])).fetchone()
    assert row is not None
    return int(row[0])


async def _upload_to_connected(address: str, db: Database, folder: Path, work: Path) -> float:
    await register(address, "uploaded")
    bot_id = await _bot_id(db, "uploaded")
    packed = pack(folder)
    hosted = Hosted(db.pool)
    placement = Placement(address, work / "runner", detect(), find_bwrap())
    runner = Runner("bench-runner", db.pool, placement)
    task = asyncio.create_task(runner.run())
    await asyncio.sleep(0.5)
    start = time.monotonic()
    await hosted.add_part(bot_id, packed.sha256, 0, packed.content, len(packed.content))
    await hosted.create_version(bot_id, "h1", "", packed.sha256, "python3 bot.py", len)
    await Runners(db.pool).set_always_on(bot_id, True)
    await _until_connected(address, {"uploaded"})
    took = time.monotonic() - start
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await Runners(db.pool).set_always_on(bot_id, False)
    return took


async def _matches(
    address: str, db: Database, names: list[str], count: int, seed: int = 1
) -> tuple[int, float, list[float], int]:
    """(decisions, seconds, every seat's round trips, strikes) of `count` hart matches among
    `names`, one after another."""
    decisions, strikes = 0, 0
    trips: list[float] = []
    start = time.monotonic()
    for offset in range(count):
        match_id = await create_match(address, "hart", names, seed=seed + offset)
        await wait_finished(address, match_id, timeout=timedelta(minutes=5))
        async with db.pool.connection("read decisions") as conn:
            cursor = await conn.execute(
                "SELECT elapsed, strikes FROM decisions WHERE match_id = %s", [match_id]
            )
            rows = await cursor.fetchall()
        decisions += len(rows)
        for elapsed, struck in rows:
            trips.extend(float(value) for value in elapsed.values())
            strikes += len(struck)
    return decisions, time.monotonic() - start, trips, strikes


async def _direct(address: str, tokens: list[str]) -> list[asyncio.subprocess.Process]:
    procs = []
    for token in tokens:
        env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_BOT_TOKEN": token}
        procs.append(await asyncio.create_subprocess_exec(sys.executable, str(EXAMPLE), env=env))
    return procs


def _sessions(address: str, folder: Path, work: Path, tokens: list[str]) -> list[Session]:
    runtime, bwrap = detect(), find_bwrap()
    sessions = []
    for index, token in enumerate(tokens):
        sockets = work / f"sock-{index}-{time.monotonic_ns()}"
        sockets.mkdir()
        spec = SandboxSpec(folder, "python3 bot.py", sockets, token)
        sessions.append(Session(spec, runtime, bwrap, address))
    return sessions


async def _hosted_against_direct(
    address: str, db: Database, folder: Path, work: Path, rounds: int, matches: int
) -> None:
    direct, hosted = [f"d{i}" for i in range(4)], [f"h{i}" for i in range(4)]
    procs = await _direct(address, [await register(address, n) for n in direct])
    tokens = [await register(address, n) for n in hosted]
    sessions = _sessions(address, folder, work, tokens)
    runs = [asyncio.create_task(s.run()) for s in sessions]
    rates: dict[str, list[float]] = {"direct": [], "hosted": []}
    trips: dict[str, list[float]] = {"direct": [], "hosted": []}
    strikes = dict.fromkeys(rates, 0)
    try:
        await _until_connected(address, {*direct, *hosted}, timeout=60)
        for number in range(rounds):
            order = [("direct", direct), ("hosted", hosted)]
            for kind, names in order if number % 2 == 0 else order[::-1]:
                made, seconds, seen, struck = await _matches(
                    address, db, names, matches, seed=1 + number * matches
                )
                rates[kind].append(made / seconds)
                trips[kind].extend(seen)
                strikes[kind] += struck
            print(
                f"  round {number + 1}: direct {rates['direct'][-1]:.0f}/s, "
                f"hosted {rates['hosted'][-1]:.0f}/s"
            )
    finally:
        for proc in procs:
            proc.terminate()
            await proc.wait()
        for session in sessions:
            session.stop()
        await asyncio.gather(*runs)
    median = {kind: statistics.median(values) for kind, values in rates.items()}
    for kind in ("direct", "hosted"):
        spread = f"{min(rates[kind]):.0f}-{max(rates[kind]):.0f}"
        print(
            f"{kind}: median {median[kind]:.0f} decisions/s over {rounds} rounds (range "
            f"{spread}); referee-added p99 {ms(percentile(trips[kind], 0.99))}, p50 "
            f"{ms(percentile(trips[kind], 0.5))} over {len(trips[kind])} round trips; "
            f"{strikes[kind]} strikes"
        )
    ratio = median["hosted"] / median["direct"]
    print(
        f"sandbox cost: hosted / direct decisions/s (medians) = {ratio:.2f} "
        f"({1 - ratio:+.0%} cost; goal <= 10%); round by round "
        + ", ".join(f"{h / d:.2f}" for d, h in zip(rates["direct"], rates["hosted"], strict=True))
    )
    added = percentile(trips["hosted"], 0.99) - percentile(trips["direct"], 0.99)
    print(f"referee-added p99, hosted - direct: {ms(added)}")


async def _idle(
    address: str, db: Database, folder: Path, work: Path, most: int, hold: float
) -> None:
    """Give one runner always-on hosted bots in steps up to `most`; print what it kept."""
    names = [f"i{i}" for i in range(most)]
    ids = [await _bot_id_registered(address, db, name) for name in names]
    packed = pack(folder)
    hosted = Hosted(db.pool)
    for bot_id in ids:
        await hosted.add_part(bot_id, packed.sha256, 0, packed.content, len(packed.content))
        await hosted.create_version(bot_id, "h1", "", packed.sha256, "python3 bot.py", len)
    placement = Placement(address, work / "idle-runner", detect(), find_bwrap())
    runner = Runner("idle-runner", db.pool, placement, capacity=max(most, 50))
    task = asyncio.create_task(runner.run())
    kept = 0
    try:
        for step in sorted({n for n in (10, 25, 50) if n < most} | {most}):
            for bot_id in ids[kept:step]:
                await Runners(db.pool).set_always_on(bot_id, True)
            took = await _until_connected(address, set(names[:step]), timeout=300)
            first = await _streams(address)
            restarts = runner.counters.restarts
            await asyncio.sleep(hold)
            later = await _streams(address)
            same = {n for n in names[:step] if n in first and first[n] == later.get(n)}
            memory = [s.memory_bytes() for s in runner.bots.values()]
            made, seconds, _, struck = await _matches(address, db, names[:4], 1)
            held = len(same) == step and runner.counters.restarts == restarts and not struck
            per_bot = sum(memory) / max(1, len([m for m in memory if m])) / 2**20
            print(
                f"{step} idle hosted bots on one runner: connected in {took:.1f} s; after "
                f"{hold:g} s {len(same)} on their first stream, "
                f"{runner.counters.restarts - restarts} restarts; a match of 4 of them: "
                f"{made / seconds:.0f} decisions/s, {struck} strikes; "
                f"{per_bot:.1f} MiB/bot ({sum(memory) / 2**20:.0f} MiB in all) -> "
                + ("kept" if held else "NOT kept")
            )
            kept = step
            if not held:
                break
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def _bot_id_registered(address: str, db: Database, name: str) -> int:
    await register(address, name)
    return await _bot_id(db, name)


async def _streams(address: str) -> dict[str, int]:
    """Bot name -> when its stream opened (ns), for the connected bots."""
    channel, api = stub(address)
    async with channel:
        listed = await api.ListBots(arena_pb2.ListBotsRequest())
    return {b.name: b.connected_at.ToNanoseconds() for b in listed.bots}


async def scenario(url: str, rounds: int, matches: int, idle: int, hold: float) -> None:
    with TemporaryDirectory() as temp:
        work = Path(temp)
        folder = work / "bot"
        folder.mkdir()
        (folder / "bot.py").write_text(EXAMPLE.read_text())
        limits = Limits(registrations=Rate(burst=1000, every=timedelta(milliseconds=1)))
        async with running_referee(url, limits=limits) as server:
            db = await Database.open(url)
            address = server.address
            try:
                upload = await _upload_to_connected(address, db, folder, work)
                print(f"upload to connected (runner tick 1 s included): {upload:.2f} s")
                sample = REGISTRY.get_sample_value(
                    "arena_runner_upload_to_connected_seconds_sum", {"runner": "bench-runner"}
                )
                seen = "not observed" if sample is None else f"{sample:.2f} s"
                print(f"  as the runner's metric saw it (version made to first connection): {seen}")
                await _hosted_against_direct(address, db, folder, work, rounds, matches)
                await _idle(address, db, folder, work, idle, hold)
            finally:
                await db.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--matches", type=int, default=2, help="matches per side and round")
    parser.add_argument("--idle", type=int, default=50, help="most idle bots on one runner")
    parser.add_argument("--hold", type=float, default=10.0, help="seconds each step is held")
    args = parser.parse_args(argv)
    with throwaway_database() as (url, where):
        print(f"database: {where}")
        asyncio.run(scenario(url, args.rounds, args.matches, args.idle, args.hold))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
