"""Benchmark: concurrent matches of instant bots against a real referee, and the same in process.

A referee (grpc.aio on 127.0.0.1, port 0) runs over a real Postgres: a throwaway database on the
server ARENA_DATABASE_URL names, else on the embedded server `arena.ops.services.database_url()`
starts; the database is dropped afterwards. K matches start at once (with `--rounds R`, R such
batches in a row) between instant random bots, one bot per seat, all in one child process that
talks to the referee over loopback gRPC exactly as a remote bot would. A bot answers each request
as soon as it arrives: it plays `RandomStrategy` with the stream `play_local` uses, so each match
over the wire plays the same moves as the in-process match of the same seed; the stored records are
compared with the in-process ones to prove it.

Decisions per second over the wire are all decisions applied / the wall time from creating the
batch of matches to the last match finishing (Postgres writes included). The round trip is the
referee's own measure, the one its `arena_decision_round_trip_seconds` histogram takes: from
queueing the DecisionRequest on the bot's stream (`Pending.sent_at`) to the match resuming with the
answer, so it includes serialising, both loopback hops, the bot's work and the referee's event-loop
wait. The benchmark records every sample exactly instead of reading the histogram's coarse
buckets. The bots' own share (request received to answer queued) is shown beside it. The baseline,
taken in the same run, is `arena.sdk.local.play_local` with random strategies on the same seeds, one
match after another in this process (median of 3 runs): no network, no database, no clock. Both
rates are wall clock: the wire run spreads over the referee, the bots' process and Postgres.

    .venv/bin/python bench/referee.py [--matches K] [--seats N] [--game hart] [--rounds R]

CI runs `make bench-smoke` (`--matches 16 --rounds 1`, ~12 s) to print the CPU breakdown in every
log; it exits non-zero only on a crash or when, with no strike, a match over the wire played other
moves than in process - never on a figure.

With `--referees N` it runs N `arena serve` processes instead, for the aggregate rate of several
referees and the latency added by routing between them: see bench/referees.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc

import engines
from arena.ops import metrics
from arena.referee import requests
from arena.referee.app import Referee, RefereeConfig
from arena.referee.clock import Clock
from arena.referee.match import MatchRunner
from arena.referee.server import RunningServer, create_server, tune_gc
from arena.sdk.bots.base import RandomStrategy
from arena.sdk.local import play_local
from arena.storage import Database
from arena.storage.rows import DecisionRow
from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2
from bench import referees
from bench.cpu import Buckets, patched
from bench.echo import EchoRun, client_worker, run_echo
from bench.harness import (
    ADMIN,
    ADMIN_METADATA,
    bot_worker,
    ms,
    percentile,
    throwaway_database,
)
from engines import EngineError, Record

FORMS = {
    "both": bot_pb2.PAYLOAD_FORM_UNSPECIFIED,
    "json": bot_pb2.PAYLOAD_FORM_JSON,
}
"""--form: what the bots ask for in Hello. They read the JSON form (the SDK's `Turn`), so typed
only is not offered; "both" is what bots written before `Hello.form` get."""
ENGINE_CALLS = ("decision", "legal_actions", "apply", "check_answer", "dump_action", "outcome")
VIEW_CALLS = ("observe", "dump_observation")
STORAGE_CALLS = ("write_decisions", "start_match", "finish_match")

CLOCK = Clock(
    per_decision=timedelta(seconds=30),
    bank=timedelta(0),
    grace=timedelta(seconds=1),
    max_strikes=0,
)
"""Generous on purpose: an instant bot never times out, so the clock never shapes the figures."""
FIRST_SEED = 1000
"""Match i of the run plays seed FIRST_SEED + i, over the wire and in process."""
LOCAL_REPEATS = 3
"""The in-process baseline is short, so it is run this many times and the median taken."""


# -- measuring -----------------------------------------------------------------------------------
class _Observer:
    def __init__(self, child: Any, samples: list[float]) -> None:
        self._child = child
        self._samples = samples

    def observe(self, amount: float) -> None:
        self._samples.append(amount)
        self._child.observe(amount)


class RoundTrips:
    """Stands in for the round-trip histogram: keeps every sample and still feeds the real one."""

    def __init__(self, histogram: Any) -> None:
        self.histogram = histogram
        self.samples: list[float] = []

    def labels(self, *values: str) -> _Observer:
        """The labelled child, as `Histogram.labels` gives."""
        return _Observer(self.histogram.labels(*values), self.samples)


@contextmanager
def recording_round_trips() -> Iterator[RoundTrips]:
    """Record the referee's round-trip samples for the duration of the block."""
    real = metrics.DECISION_ROUND_TRIP
    recorder = RoundTrips(real)
    metrics.DECISION_ROUND_TRIP = recorder  # type: ignore[assignment]
    try:
        yield recorder
    finally:
        metrics.DECISION_ROUND_TRIP = real


class LogTally(logging.Handler):
    """Counts what the referee logs at WARNING and above, instead of flooding the report."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        self.messages[f"{record.levelname} {record.name}: {record.getMessage()}"] += 1


@dataclass(frozen=True, slots=True)
class WireRun:
    """What the matches over the wire did."""

    decisions: int
    seconds: float
    round_trips: list[float]
    handling: list[float]
    writes: list[float]
    """Seconds each `record_decision` took (the group-committed durable write)."""
    transactions: int
    strikes: int
    bot_problems: list[str]
    records: dict[int, Record]
    """By seed."""
    cpu: dict[str, float]
    """CPU seconds of the referee's process per component over the batches, "total" included."""
    batch_sizes: list[int]
    """Rows per group-commit transaction."""
    commits: list[float]
    """Seconds each group-commit transaction took."""
    request_bytes: list[int]
    """Serialised size of a sample of the DecisionRequests sent."""


# -- over the wire -------------------------------------------------------------------------------
@asynccontextmanager
async def bot_process(
    address: str, bots: list[tuple[str, int]], form: int
) -> AsyncIterator[Callable[[], Awaitable[dict[str, Any]]]]:
    """The bots' child process, connected to `address`; yields a function that ends it."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--bot-worker",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    plan = {"address": address, "bots": bots, "form": form}
    child.stdin.write((json.dumps(plan) + "\n").encode())
    await child.stdin.drain()
    report: dict[str, Any] = {}

    async def finish() -> dict[str, Any]:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.close()
        text = await asyncio.wait_for(child.stdout.read(), timeout=30)
        await child.wait()
        report.update(json.loads(text or b"{}"))
        return report

    try:
        yield finish
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()


async def until_connected(api: arena_pb2_grpc.ArenaServiceStub, count: int) -> None:
    """Wait until `count` bots have an open stream."""
    for _ in range(600):
        if len((await api.ListBots(arena_pb2.ListBotsRequest())).bots) >= count:
            return
        await asyncio.sleep(0.05)
    raise TimeoutError(f"fewer than {count} bots connected within 30s")


async def play_wire(
    url: str,
    game: str,
    seats: int,
    batches: list[list[int]],
    options: dict[str, Any],
    form: int = bot_pb2.PAYLOAD_FORM_UNSPECIFIED,
) -> WireRun:
    """Play each batch of seeds as concurrent matches against a real referee."""
    db = await Database.open(url)
    await db.migrate()
    writes: list[float] = []
    durable_write = db.record_decision

    async def timed_write(row: DecisionRow) -> None:
        began = time.perf_counter()
        await durable_write(row)
        writes.append(time.perf_counter() - began)

    db.record_decision = timed_write  # type: ignore[method-assign,assignment]
    batch_sizes: list[int] = []
    commits: list[float] = []
    sink = db.write_decisions

    async def timed_sink(rows: Sequence[DecisionRow]) -> Any:
        began = time.perf_counter()
        try:
            return await sink(rows)
        finally:
            commits.append(time.perf_counter() - began)
            batch_sizes.append(len(rows))

    db.write_decisions = timed_sink  # type: ignore[method-assign]
    config = RefereeConfig(
        host="bench-referee",
        admin_token=ADMIN,
        reconnect_grace=timedelta(seconds=5),
        default_clock=CLOCK,
        connect_timeout=timedelta(seconds=30),
    )
    referee = Referee(db, config)
    finished: dict[int, tuple[float, int]] = {}
    """Match id -> (when it finished, strikes in it)."""
    changed = asyncio.Event()

    def on_finish(runner: MatchRunner) -> None:
        finished[runner.match_id] = (time.perf_counter(), sum(s.strikes for s in runner.seats))
        changed.set()

    referee.on_finish.append(on_finish)
    tune_gc()  # as `arena serve` does
    running: RunningServer = await create_server(referee, "127.0.0.1:0")
    channel = grpc.aio.insecure_channel(running.address)
    api = arena_pb2_grpc.ArenaServiceStub(channel)
    buckets = Buckets()
    request_bytes: list[int] = []
    try:
        seats_of: dict[int, list[str]] = {}
        plan: list[tuple[str, int]] = []
        for seed in (s for batch in batches for s in batch):
            names = [f"bench-{seed}-{seat}" for seat in range(seats)]
            seats_of[seed] = names
            for name in names:
                # As admin: the per-address registration rate would refuse a large field.
                request = arena_pb2.RegisterBotRequest(name=name)
                reply = await api.RegisterBot(request, metadata=ADMIN_METADATA)
                plan.append((reply.token, seed))
        with recording_round_trips() as recorder, ExitStack() as patches:
            async with bot_process(running.address, plan, form) as finish:
                await until_connected(api, len(plan))
                patches.enter_context(instrumented(buckets, engines.get(game), db, request_bytes))
                seconds = cpu = 0.0
                match_of: dict[int, int] = {}
                for batch in batches:
                    began, began_cpu = time.perf_counter(), time.process_time()
                    matches = await asyncio.gather(
                        *(create(api, game, seats_of[seed], seed, options) for seed in batch)
                    )
                    match_of.update(zip(batch, matches, strict=True))
                    while True:
                        changed.clear()
                        if all(m in finished for m in matches):
                            break
                        await asyncio.wait_for(changed.wait(), timeout=600)
                    seconds += max(finished[m][0] for m in matches) - began
                    cpu += time.process_time() - began_cpu
                patches.close()
                report = await finish()
        records = {seed: await db.record(match_id) for seed, match_id in match_of.items()}
        transactions = db.writer.batches
    finally:
        await channel.close()
        await running.stop(timedelta(milliseconds=200))
        await db.close()
    return WireRun(
        decisions=sum(len(r.moves) for r in records.values()),
        seconds=seconds,
        round_trips=recorder.samples,
        handling=report.get("handling", []),
        writes=writes,
        transactions=transactions,
        strikes=sum(s for _, s in finished.values()),
        bot_problems=report.get("problems", []),
        records=records,
        cpu={**buckets.seconds, "total": cpu},
        batch_sizes=batch_sizes,
        commits=commits,
        request_bytes=request_bytes,
    )


@contextmanager
def instrumented(
    buckets: Buckets, rules: Any, db: Database, request_bytes: list[int]
) -> Iterator[None]:
    """Charge the referee's CPU to engine, view, encoding and storage while the block runs."""
    build = requests.decision_request
    made = [0]

    def sized(*args: Any, **kwargs: Any) -> Any:
        out = build(*args, **kwargs)
        made[0] += 1
        if made[0] % 16 == 1:
            request_bytes.append(out[0].ByteSize())
        return out

    with ExitStack() as stack:
        for name in ENGINE_CALLS:
            stack.enter_context(patched(rules, name, buckets.wrap("engine", getattr(rules, name))))
        for name in VIEW_CALLS:
            stack.enter_context(patched(rules, name, buckets.wrap("view", getattr(rules, name))))
        stack.enter_context(patched(requests, "decision_request", buckets.wrap("encoding", sized)))
        for name in STORAGE_CALLS:
            stack.enter_context(patched(db, name, buckets.wrap_async("storage", getattr(db, name))))
        yield


async def create(
    api: arena_pb2_grpc.ArenaServiceStub,
    game: str,
    bots: list[str],
    seed: int,
    options: dict[str, Any],
) -> int:
    """Create one match as admin and return its id."""
    request = arena_pb2.CreateMatchRequest(game=game, bots=bots, seed=seed)
    request.options.update(options)
    match = await api.CreateMatch(request, metadata=ADMIN_METADATA)
    return int(match.match_id)


# -- in process ----------------------------------------------------------------------------------
def play_in_process(
    game: str, seats: int, seeds: list[int], options: dict[str, Any], repeats: int = LOCAL_REPEATS
) -> tuple[int, float, dict[int, Record]]:
    """(decisions, median wall seconds of `repeats` runs, records by seed) of `play_local`."""
    records: dict[int, Record] = {}
    runs: list[float] = []
    for _ in range(repeats):
        began = time.perf_counter()
        for seed in seeds:
            records[seed] = play_local(game, [RandomStrategy()] * seats, seed, options).record
        runs.append(time.perf_counter() - began)
    return sum(len(r.moves) for r in records.values()), statistics.median(runs), records


# -- report --------------------------------------------------------------------------------------
def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8, help="concurrent matches (default 8)")
    parser.add_argument("--seats", type=int, default=4, help="seats per match (default 4)")
    parser.add_argument("--game", default="hart", help="the game (default hart)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="batches of concurrent matches, in a row (default 3)"
    )
    parser.add_argument(
        "--form",
        choices=sorted(FORMS),
        default="json",
        help="payload form the bots ask for in Hello (default json: what they read)",
    )
    parser.add_argument(
        "--echo-seconds",
        type=float,
        default=3.0,
        help="seconds of the bare grpc.aio baseline (default 3; 0 skips it)",
    )
    parser.add_argument(
        "--referees",
        type=int,
        default=0,
        help="run N `arena serve` processes instead of the in-process referee (bench/referees.py; "
        "default 0: the in-process referee)",
    )
    parser.add_argument(
        "--spread",
        choices=["bot", "match"],
        default="bot",
        help="with --referees: deal bots round robin over the referees bot by bot (most seats "
        "routed) or match by match (none routed) (default bot)",
    )
    parser.add_argument(
        "--follow",
        choices=["on", "off", "both"],
        default="on",
        help="with --referees: whether the bots move to the referee hosting their match when "
        "told (MatchHost); both: a phase without, then one with, in the same run (default on)",
    )
    parser.add_argument(
        "--routed",
        action="store_true",
        help="with --referees 2 or more: time the decision cycle with every bot on referee-0 and "
        "matches created through referee-0, then through referee-1 (default off)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="with --referees: seconds a batch may take before the run gives up (default 300)",
    )
    parser.add_argument("--bot-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--client-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bot_worker:
        asyncio.run(bot_worker())
        return 0
    if args.client_worker:
        client_worker()
        return 0

    try:
        engines.get(args.game).check_seats(args.seats)
    except EngineError as exc:
        parser.error(str(exc))
    if args.matches < 1 or args.rounds < 1:
        parser.error("--matches and --rounds must be at least 1")
    options: dict[str, Any] = {}
    seeds = [FIRST_SEED + i for i in range(args.matches * args.rounds)]
    batches = [seeds[r * args.matches : (r + 1) * args.matches] for r in range(args.rounds)]
    if args.referees < 0:
        parser.error("--referees must be 0 (in process) or more")
    if args.referees:
        return referees.run(args, batches, FORMS[args.form])
    print(__doc__.split("\n\n")[0])
    for paragraph in __doc__.split("\n\n")[1:3]:
        print()
        print(paragraph)
    print()
    print(
        f"game {args.game}, {args.seats} seats, {args.matches} concurrent matches x "
        f"{args.rounds} rounds = {len(seeds)} matches, seeds {seeds[0]}..{seeds[-1]}, "
        f"bots ask for the {args.form} form"
    )

    tally = LogTally()
    logging.getLogger().addHandler(tally)
    with throwaway_database() as (url, where):
        print(f"database: a throwaway database on {where}")
        wire = asyncio.run(
            play_wire(url, args.game, args.seats, batches, options, FORMS[args.form])
        )
    size = round(statistics.fmean(wire.request_bytes)) if wire.request_bytes else 1500
    echo = None
    if args.echo_seconds > 0:
        echo = asyncio.run(run_echo(args.matches, size, args.echo_seconds))
    local_decisions, local_seconds, local_records = play_in_process(
        args.game, args.seats, seeds, options
    )

    same = sum(1 for s in seeds if wire.records[s].to_json() == local_records[s].to_json())
    wire_rate = wire.decisions / wire.seconds
    local_rate = local_decisions / local_seconds
    print()
    print(
        f"over the wire: {wire.decisions:,} decisions in {wire.seconds:.2f}s = "
        f"{wire_rate:,.0f} decisions/s ({wire.strikes} strikes)"
    )
    if wire.round_trips:
        trips = wire.round_trips
        print(
            f"  round trip (referee-side, {len(trips):,} samples): p50 {ms(percentile(trips, 0.5))}"
            f", p99 {ms(percentile(trips, 0.99))}, mean {ms(statistics.fmean(trips))}"
        )
    if wire.handling:
        hand = wire.handling
        print(
            f"  of which the bots' own work (receive to answer): p50 {ms(percentile(hand, 0.5))}"
            f", p99 {ms(percentile(hand, 0.99))}"
        )
    if wire.writes:
        print(
            f"  durable write per decision (group commit, {wire.transactions:,} transactions): "
            f"p50 {ms(percentile(wire.writes, 0.5))}, p99 {ms(percentile(wire.writes, 0.99))}"
        )
    for problem in wire.bot_problems[:5]:
        print(f"  bot problem: {problem}")
    for message, count in tally.messages.most_common(5):
        print(f"  referee log, {count:,} times: {message[:160]}")
    print(
        f"in process:    {local_decisions:,} decisions in {local_seconds:.2f}s = "
        f"{local_rate:,.0f} decisions/s (play_local, one match after another, "
        f"median of {LOCAL_REPEATS} runs)"
    )
    print(f"same moves in both: {same} of {len(seeds)} matches")
    report_commits(wire)
    report_cpu(wire)
    print()
    print(
        f"Ratio: over the wire / in process = {wire_rate / local_rate:.2f}x decisions/s "
        f"(in process is {local_rate / wire_rate:.1f}x faster)"
    )
    if echo is not None:
        report_echo(wire, echo)
    if same != len(seeds) and not wire.strikes:
        # Not a timing failure: with no strike every bot answered in time, so the moves must match.
        print(f"FAILED: {len(seeds) - same} matches over the wire differ from play_local's")
        return 1
    return 0


def report_commits(wire: WireRun) -> None:
    """Group commit: rows per transaction and how long a transaction took."""
    if not wire.batch_sizes:
        return
    sizes, commits = wire.batch_sizes, wire.commits
    print(
        f"group commit: {len(sizes):,} transactions, rows per transaction mean "
        f"{statistics.fmean(sizes):.1f}, p50 {percentile(sizes, 0.5)}, max {max(sizes)}; "
        f"commit p50 {ms(percentile(commits, 0.5))}, p99 {ms(percentile(commits, 0.99))}"
    )


def report_cpu(wire: WireRun) -> None:
    """The referee process's CPU per decision, by component."""
    total = wire.cpu.get("total", 0.0)
    if not total or not wire.decisions:
        return
    parts = {k: wire.cpu.get(k, 0.0) for k in ("engine", "view", "encoding", "storage")}
    rest = total - sum(parts.values())
    per = 1e6 / wire.decisions
    shown = ", ".join(f"{k} {v * per:,.0f}" for k, v in parts.items())
    print(
        f"referee CPU per decision: {total * per:,.0f} us = {shown}, gRPC + event loop + "
        f"match loop (the rest) {rest * per:,.0f} us  [{total / wire.seconds:.0%} of a core]"
    )


def report_echo(wire: WireRun, echo: EchoRun) -> None:
    """The referee against bare grpc.aio on as many streams, measured in the same run."""
    trips = len(wire.round_trips) / wire.seconds
    lat = echo.latencies or [0.0]
    print(
        f"bare grpc.aio ping-pong, {echo.streams} streams, {echo.size}-byte replies (the mean "
        f"DecisionRequest): {echo.rate:,.0f} round trips/s, p50 {ms(percentile(lat, 0.5))}, "
        f"p99 {ms(percentile(lat, 0.99))}; server CPU {echo.server_cpu_per_trip * 1e6:,.0f} us "
        "per round trip"
    )
    if echo.rate and wire.decisions and wire.cpu.get("total"):
        # A referee on one core reaches half the bare rate only if a decision costs at most
        # 2 / (bare rate) seconds of its CPU, whatever the decision is made of.
        budget = 2 / echo.rate * 1e6
        spent = wire.cpu["total"] / wire.decisions * 1e6
        print(
            f"CPU budget per decision for 50% of bare: {budget:,.0f} us (2 / bare rate); "
            f"the referee spends {spent:,.0f} us = {spent / budget:.1f}x the budget"
        )
    print(
        f"Ratio: referee round trips/s / bare round trips/s = {trips:,.0f} / {echo.rate:,.0f} = "
        f"{trips / echo.rate:.0%} (decisions/s: {wire.decisions / wire.seconds:,.0f})"
    )
    if wire.round_trips:
        added = percentile(wire.round_trips, 0.99) - percentile(lat, 0.99)
        print(f"referee-added p99 round trip (referee p99 - bare p99): {ms(added)}")


if __name__ == "__main__":
    sys.exit(main())
