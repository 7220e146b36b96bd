"""Benchmark: the referee's decisions/s on OpenSpiel's leduc poker against Hart, in the same run.

Both games go through `bench/referee.py`'s `play_wire`: a referee in process (grpc.aio on
127.0.0.1) over a throwaway Postgres database, K concurrent matches of instant random bots in a
child process that talks to it over loopback gRPC. The two games alternate (Hart, leduc, Hart,
leduc, ...) so that both meet the same load; each run gets its own database and seeds. Hart is
played by 4 seats, leduc poker by 2 (its usual table).

Per game: decisions/s and matches/s over the wire (wall time from creating a batch to its last
match finishing, Postgres writes included), the referee's CPU per decision by component (engine,
view, encoding, storage, the rest), and the referee-side round trip. The ratio leduc / Hart is
what to compare across runs. A leduc match lasts a few decisions, a Hart match a few hundred, so
leduc's figures carry a match's start and finish over far fewer decisions; matches/s shows it.
As in `bench/referee.py`, every match's record is compared with `play_local`'s on the same seed.

    .venv/bin/python bench/openspiel_referee.py [--matches K] [--rounds R] [--repeats N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.v1 import bot_pb2
from bench.harness import ms, percentile, throwaway_database
from bench.referee import FIRST_SEED, WireRun, play_in_process, play_wire

GAMES = (("hart", 4), ("openspiel/leduc_poker", 2))
"""(game, seats) in the order each repeat plays them."""
PARTS = ("engine", "view", "encoding", "storage")


def merged(runs: Sequence[WireRun]) -> dict[str, float]:
    """Totals over runs: decisions, seconds, matches and CPU seconds by component."""
    out: dict[str, float] = defaultdict(float)
    for run in runs:
        out["decisions"] += run.decisions
        out["seconds"] += run.seconds
        out["matches"] += len(run.records)
        out["strikes"] += run.strikes
        for key, value in run.cpu.items():
            out[f"cpu:{key}"] += value
    return out


def report(game: str, seats: int, runs: Sequence[WireRun], same: int) -> float:
    """Print one game's figures; return its decisions/s."""
    total = merged(runs)
    rate = total["decisions"] / total["seconds"]
    per = 1e6 / total["decisions"]
    parts = {k: total[f"cpu:{k}"] * per for k in PARTS}
    rest = total["cpu:total"] * per - sum(parts.values())
    trips = [t for run in runs for t in run.round_trips]
    print(
        f"{game} ({seats} seats): {total['decisions']:,.0f} decisions in {total['matches']:.0f} "
        f"matches, {total['seconds']:.2f}s = {rate:,.0f} decisions/s, "
        f"{total['matches'] / total['seconds']:,.1f} matches/s "
        f"({total['decisions'] / total['matches']:.1f} decisions a match, "
        f"{total['strikes']:.0f} strikes, {same} of {total['matches']:.0f} same as in process)"
    )
    print(
        f"  referee CPU per decision {total['cpu:total'] * per:,.0f} us = "
        + ", ".join(f"{k} {v:,.0f}" for k, v in parts.items())
        + f", the rest {rest:,.0f}"
    )
    if trips:
        print(f"  round trip p50 {ms(percentile(trips, 0.5))}, p99 {ms(percentile(trips, 0.99))}")
    return rate


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8, help="concurrent matches (default 8)")
    parser.add_argument("--rounds", type=int, default=2, help="batches per run (default 2)")
    parser.add_argument("--repeats", type=int, default=2, help="runs of each game (default 2)")
    args = parser.parse_args(argv)
    if min(args.matches, args.rounds, args.repeats) < 1:
        parser.error("--matches, --rounds and --repeats must be at least 1")
    print(__doc__.split("\n\n")[0])
    print(
        f"\n{args.matches} concurrent matches x {args.rounds} rounds per run, {args.repeats} "
        "runs per game, alternating"
    )
    runs: dict[str, list[WireRun]] = defaultdict(list)
    same: dict[str, int] = defaultdict(int)
    per_run = args.matches * args.rounds
    for repeat in range(args.repeats):
        for game, seats in GAMES:
            first = FIRST_SEED + repeat * per_run
            seeds = list(range(first, first + per_run))
            batches = [seeds[i : i + args.matches] for i in range(0, per_run, args.matches)]
            with throwaway_database() as (url, _):
                wire = asyncio.run(
                    play_wire(url, game, seats, batches, {}, bot_pb2.PAYLOAD_FORM_JSON)
                )
            runs[game].append(wire)
            _, _, local = play_in_process(game, seats, seeds, {}, repeats=1)
            same[game] += sum(wire.records[s].to_json() == local[s].to_json() for s in seeds)
            print(f"  run {repeat + 1}: {game} {wire.decisions / wire.seconds:,.0f} decisions/s")
    print()
    rates = {game: report(game, seats, runs[game], same[game]) for game, seats in GAMES}
    hart, leduc = (merged(runs[game]) for game, _ in GAMES)
    per_decision = [m["cpu:total"] / m["decisions"] for m in (hart, leduc)]
    per_match = [m["matches"] / m["seconds"] for m in (hart, leduc)]
    print()
    print(
        f"Ratio leduc / Hart: decisions/s {rates['openspiel/leduc_poker'] / rates['hart']:.2f}x, "
        f"referee CPU per decision {per_decision[1] / per_decision[0]:.2f}x, "
        f"matches/s {per_match[1] / per_match[0]:.2f}x"
    )
    spread = [r.decisions / r.seconds for r in runs["openspiel/leduc_poker"]]
    if len(spread) > 1:
        print(
            f"leduc runs: {', '.join(f'{s:,.0f}' for s in spread)} decisions/s "
            f"(stdev {statistics.stdev(spread):,.0f})"
        )
    mismatched = sum(len(r.records) for rs in runs.values() for r in rs) - sum(same.values())
    strikes = sum(r.strikes for rs in runs.values() for r in rs)
    if mismatched and not strikes:
        print(f"FAILED: {mismatched} matches over the wire differ from play_local's")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
