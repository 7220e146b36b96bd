"""Benchmark: a 64-bot, 6-round Swiss of Hart with instant bots on the real stack, and pairing.

The stack is the one `arena up` runs: a referee, a Celery worker (prefork) and beat as processes,
over a fresh embedded Postgres and Redis in a temporary folder (so every run starts empty). The
64 bots are instant random bots in this process, each on its own gRPC stream. It prints the
tournament's wall time and matches per minute, and as the baseline measured in the same run, the
same number of matches played in process with no network, storage or Celery (play_local). Then it
runs bench/pairing.py: the pairing time of 1,000 and 10,000 entrants against a plain fold.

Where the time goes is read back from the timestamps the stack stored, per round: pairing and
dispatch (round started to its first match started: the pairing task, creating the tables and
Celery handing them to the referee), referee (first match started to the last one finished),
rating (last match finished to the round's last rating change) and closing the round (last match
finished to the next round started, the chord callback included); the sums over the rounds are
set against the tournament's wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import grpc
import pairing as pairing_bench
import psycopg

from arena.ops.ports import free_port
from arena.ops.stack import Stack, StackConfig
from arena.referee.clock import seconds, to_duration
from arena.sdk import StrategyBot
from arena.sdk.bots.base import RandomStrategy
from arena.sdk.local import play_local
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2

PHASES = """
SELECT r.round_no,
       EXTRACT(EPOCH FROM min(m.started_at) - r.started_at) AS pairing,
       EXTRACT(EPOCH FROM max(m.finished_at) - min(m.started_at)) AS referee,
       EXTRACT(EPOCH FROM (SELECT max(c.created_at) FROM rating_changes c
                           WHERE c.tournament_id = r.tournament_id AND c.round_no = r.round_no)
                          - max(m.finished_at)) AS rating,
       EXTRACT(EPOCH FROM (SELECT n.started_at FROM rounds n WHERE n.tournament_id =
                           r.tournament_id AND n.round_no = r.round_no + 1) - max(m.finished_at))
           AS closing,
       EXTRACT(EPOCH FROM avg(m.started_at - m.created_at)) AS match_wait,
       EXTRACT(EPOCH FROM avg(m.finished_at - m.started_at)) AS match_play
FROM rounds r JOIN matches m ON m.tournament_id = r.tournament_id AND m.round_no = r.round_no
GROUP BY r.tournament_id, r.round_no ORDER BY r.round_no
"""
"""Per round, seconds spent in each phase, from the timestamps the stack stored."""


def rotated(items: list[str], start: int) -> list[str]:
    """`items` from index `start` (mod their number) round to the one before it."""
    k = start % len(items)
    return items[k:] + items[:k]


def cpu_seconds(port: int) -> float:
    """The process CPU seconds a stack process reports on its metrics port (0 if unreadable).

    The machine is shared: CPU per match is steadier than wall time under other jobs' load."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
    except OSError:
        return 0.0
    for line in text.splitlines():
        if line.startswith("process_cpu_seconds_total "):
            return float(line.split()[1])
    return 0.0


def phases_of(url: str) -> list[tuple[object, ...]]:
    """Per round: the round number and the seconds of each phase (see `PHASES`)."""
    with psycopg.connect(url) as conn:
        return [tuple(row) for row in conn.execute(PHASES).fetchall()]


def report_phases(rows: list[tuple[object, ...]], wall: float) -> None:
    """Print where the tournament's time went, round by round and in total."""
    names = ("pairing+dispatch", "referee", "rating", "closing")
    print("  where the time went, per round (s): " + ", ".join(names) + "; mean match wait/play")
    totals = dict.fromkeys(names, 0.0)
    for round_no, *values in rows:
        phases = [float(str(v)) if v is not None else 0.0 for v in values]
        for name, value in zip(names, phases, strict=False):
            totals[name] += value
        cells = "  ".join(f"{v:6.2f}" for v in phases[:4])
        print(f"    round {round_no}: {cells}   {phases[4]:5.2f} / {phases[5]:5.2f}")
    share = ", ".join(f"{k} {v:.1f} s ({v / wall:.0%})" for k, v in totals.items())
    print(f"  in total: {share} of {wall:.1f} s wall (rating overlaps closing)")


async def run_tournament(stack: Stack, bots: int, rounds: int) -> tuple[float, int]:
    """Register and connect the bots, play the tournament; return (seconds, matches)."""
    metadata = (("authorization", f"Bearer {stack.admin_token}"),)
    async with grpc.aio.insecure_channel(stack.address) as channel:
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        players = []
        for i in range(bots):
            request = arena_pb2.RegisterBotRequest(name=f"instant-{i:02d}")
            # As the admin: the registration rate limit is for strangers, not the operator.
            reply = await api.RegisterBot(request, metadata=metadata)
            players.append((StrategyBot("random", seed=i), reply.name, reply.token))
        # Bot i starts at referee i mod N (and fails over to the others): one referee's bots
        # would make every match's host that referee.
        addresses = [r.address for r in stack.referees]
        tasks = [
            asyncio.create_task(b.run_async(rotated(addresses, i), t))
            for i, (b, _, t) in enumerate(players)
        ]
        while len((await api.ListBots(arena_pb2.ListBotsRequest())).bots) < bots:
            await asyncio.sleep(0.1)
        create = arena_pb2.CreateTournamentRequest(
            name="bench",
            game="hart",
            bots=[n for _, n, _ in players],
            table_size=4,
            rounds=rounds,
            seed=1,
            clock=common_pb2.Clock(per_decision=to_duration(seconds(5))),
        )
        tournament = await api.CreateTournament(create, metadata=metadata)
        get = arena_pb2.GetTournamentRequest(tournament_id=tournament.tournament_id)
        while (await api.GetTournament(get)).status != arena_pb2.TOURNAMENT_STATUS_RUNNING:
            await asyncio.sleep(0.05)
        began = time.perf_counter()
        while (t := await api.GetTournament(get)).status != arena_pb2.TOURNAMENT_STATUS_FINISHED:
            await asyncio.sleep(0.1)
        wall = time.perf_counter() - began
        matches = len(
            (await api.ListMatches(arena_pb2.ListMatchesRequest(game="hart", limit=500))).matches
        )
        for bot, _, _ in players:
            bot.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
    del t
    return wall, matches


def in_process(matches: int) -> float:
    """Seconds to play `matches` 4-seat Hart matches in process between random strategies."""
    began = time.perf_counter()
    for seed in range(matches):
        play_local("hart", [RandomStrategy() for _ in range(4)], seed)
    return time.perf_counter() - began


def main() -> None:
    """Print the tournament figures, the in-process baseline, then the pairing benchmark."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--referees", type=int, default=1, help="referee processes, as `arena up --referees`"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        config = StackConfig(
            data_dir=Path(tmp),
            port=free_port(),
            referee_metrics_port=free_port(),
            worker_metrics_port=free_port(),
            beat_metrics_port=free_port(),
            concurrency=args.concurrency,
            referees=args.referees,
            logs_to_files=True,
        )
        os.environ.setdefault("ARENA_BEAT_EVERY", "0.5")
        for name in ("ARENA_DATABASE_URL", "ARENA_REDIS_URL"):  # a fresh, empty stack
            os.environ.pop(name, None)
        with Stack(config) as stack, contextlib.ExitStack():
            ports = {r.name: r.metrics_port for r in stack.referees}
            cpu_before = {name: cpu_seconds(port) for name, port in ports.items()}
            wall, matches = asyncio.run(run_tournament(stack, args.bots, args.rounds))
            cpu = {name: cpu_seconds(port) - cpu_before[name] for name, port in ports.items()}
            rows = phases_of(stack.environ()["ARENA_DATABASE_URL"])
    local = in_process(matches)
    print(
        f"Swiss of Hart: {args.bots} instant bots, {args.rounds} rounds, 4-seat tables, "
        f"worker concurrency {args.concurrency}, {args.referees} referee(s)"
    )
    print(
        f"  tournament wall time   {wall:8.1f} s for {matches} matches "
        f"= {matches / wall * 60:7.1f} matches/min"
    )
    print(
        f"  in process (baseline)  {local:8.1f} s for {matches} matches "
        f"= {matches / local * 60:7.1f} matches/min"
    )
    print(f"  ratio tournament/in-process throughput: {local / wall:.2f}")
    print(
        "  CPU per match: "
        + ", ".join(f"{name} {seconds / matches * 1000:.1f} ms" for name, seconds in cpu.items())
        + f"; in process {local / matches * 1000:.1f} ms"
    )
    report_phases(rows, wall)
    print()
    pairing_bench.main()


if __name__ == "__main__":
    main()
