"""`bench/referee.py --referees N`: N `arena serve` processes on one database and one Redis.

Each referee is a real `arena serve` child process (names referee-0 .. referee-N-1, ports picked
free, the admin token passed as ARENA_ADMIN_TOKEN) over a throwaway database on the server
ARENA_DATABASE_URL names (else the embedded Postgres) and over ARENA_REDIS_URL (else the embedded
Redis). The bots are instant random bots, one child process per referee, each connected to its
referee over loopback gRPC.

Two modes:

- throughput (the default): `--spread bot` deals the bots round robin over the referees, bot by
  bot, so most seats of a match are connected to another referee than the one hosting it (their
  requests and answers are routed through Redis); `--spread match` connects every bot of match i
  to referee i mod N, the best case. Match i is created through referee i mod N. Printed:
  aggregate decisions/s (all decisions / wall time from creating a batch to its last match
  finishing, summed over batches), and the CPU seconds per decision of all referee processes, of
  the bot processes, of the Postgres backends serving the run's database and of the whole
  machine (/proc/stat), since on one machine they all share the cores.
- routed latency (`--routed`, N >= 2): two phases with every bot connected to referee-0; in the
  local phase matches are created through referee-0, in the routed phase through referee-1. Where
  `Match.host` exists, the matches' hosts are printed (placement may move a match to the
  referee its bots are on, which makes the phase local again). The decision cycle is timed in the
  bots' processes: from a bot's answer leaving to the match's next request arriving at a bot (one
  monotonic clock, as every process is on this machine), p50 and p99 per phase; a routed cycle
  crosses Redis twice (the answer in, the next request out).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import grpc
import psycopg

from arena.ops import services
from arena.ops.ports import free_port
from arena.ops.probes import wait_healthy
from arena.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, common_pb2
from bench.harness import (
    ADMIN,
    ADMIN_METADATA,
    InstantBot,
    bot_worker,
    ms,
    percentile,
    throwaway_database,
)

CLOCK_TICK = os.sysconf("SC_CLK_TCK")
DONE = {common_pb2.MATCH_STATUS_FINISHED, common_pb2.MATCH_STATUS_ABORTED}
HOST_FIELD = "host"
HAS_HOST = HOST_FIELD in arena_pb2.Match.DESCRIPTOR.fields_by_name
"""Whether this version's `Match` says which referee hosts it."""


# -- the bots (one child process per referee) -----------------------------------------------------
class TimedBot(InstantBot):
    """An instant bot that notes when each request arrived and when its answer left."""

    def __init__(self, seed: int, form: int) -> None:
        super().__init__(seed, form)
        self.events: list[tuple[int, float, int, str]] = []
        """(match id, monotonic seconds, 0 request arrived / 1 answer ready, the referee the
        stream was open on)."""

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        self.events.append((request.match_id, time.perf_counter(), 0, self.following.referee))
        action = await super()._answer(request)
        self.events.append((request.match_id, time.perf_counter(), 1, self.following.referee))
        return action


async def timed_bot_worker() -> None:
    """The child process: `bench.harness.bot_worker` with timed bots, reporting their events."""
    await bot_worker(TimedBot, lambda bot: {"events": list(getattr(bot, "events", []))})


@dataclass
class BotGroup:
    """One bot child process, connected to one referee."""

    process: asyncio.subprocess.Process
    referee: int
    """The index of the referee its bots are connected to."""
    report: dict[str, Any] = field(default_factory=dict)

    async def finish(self) -> dict[str, Any]:
        """Close its stdin, read its report."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()
        text = await asyncio.wait_for(self.process.stdout.read(), timeout=60)
        await self.process.wait()
        self.report = json.loads(text or b"{}")
        return self.report


@contextlib.asynccontextmanager
async def bot_groups(
    addresses: Sequence[str], plans: Sequence[list[tuple[str, int]]], form: int, follow: bool
) -> AsyncIterator[list[BotGroup]]:
    """A bot process per address with a non-empty plan of (token, seed); `follow`: the bots
    move to the referee hosting their match when told (MatchHost)."""
    groups: list[BotGroup] = []
    try:
        for referee, (address, bots) in enumerate(zip(addresses, plans, strict=True)):
            if not bots:
                continue
            child = await asyncio.create_subprocess_exec(
                sys.executable,
                str(Path(__file__).resolve()),
                "--timed-bot-worker",
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            assert child.stdin is not None
            plan = {"address": address, "bots": bots, "form": form, "follow": follow}
            child.stdin.write((json.dumps(plan) + "\n").encode())
            await child.stdin.drain()
            groups.append(BotGroup(child, referee))
        yield groups
    finally:
        for group in groups:
            if group.process.returncode is None:
                group.process.kill()
                await group.process.wait()


# -- the referees ---------------------------------------------------------------------------------
def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def backend_cpu(database_url: str) -> dict[int, float]:
    """CPU seconds of each Postgres backend serving `database_url`'s database (this run's
    throwaway one), by pid; empty when Postgres runs where /proc cannot see it."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return {pid: cpu_seconds(pid) for (pid,) in rows if Path(f"/proc/{pid}").exists()}


def machine_cpu_seconds() -> float:
    """Busy CPU seconds of the whole machine, all cores (/proc/stat: all but idle and iowait)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / CLOCK_TICK


@dataclass
class Fleet:
    """N `arena serve` child processes on one database and Redis."""

    count: int
    database_url: str
    redis_url: str
    folder: Path
    names: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    metrics_ports: list[int] = field(default_factory=list)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def addresses(self) -> list[str]:
        """Each referee's gRPC address."""
        return [f"127.0.0.1:{port}" for port in self.ports]

    def start(self) -> None:
        """Start referee-0 (it migrates the database), then the others together."""
        run = uuid.uuid4().hex[:6]  # a fresh name per run: no stale lease or heartbeat matches it
        self.names = [f"bench-{run}-referee-{i}" for i in range(self.count)]
        self.ports = [free_port() for _ in range(self.count)]
        self.metrics_ports = [free_port() for _ in range(self.count)]
        env = {
            **os.environ,
            "ARENA_DATABASE_URL": self.database_url,
            "ARENA_REDIS_URL": self.redis_url,
            "ARENA_ADMIN_TOKEN": ADMIN,
            "ARENA_HOME": str(self.folder),
        }
        env.pop("ARENA_DATA_DIR", None)
        # The referees run this repository's `arena`, whatever an installed copy would give.
        root = str(Path(__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH", "")]))
        for group in ([0], list(range(1, self.count))):
            for i in group:
                log = (self.folder / f"referee-{i}.log").open("ab")
                self.processes.append(
                    subprocess.Popen(
                        [
                            *(sys.executable, "-m", "arena.cli.main", "serve"),
                            *("--port", str(self.ports[i]), "--name", self.names[i]),
                            *("--metrics-port", str(self.metrics_ports[i])),
                            *("--per-decision", "30", "--reconnect-grace", "5"),
                            # Where bots that follow their match are sent (MatchHost).
                            *("--advertise", self.addresses[i]),
                        ],
                        env=env,
                        stdout=log,
                        stderr=log,
                        cwd=self.folder,
                        start_new_session=True,
                    )
                )
                log.close()
            for i in group:
                process = self.processes[i]
                try:
                    wait_healthy(
                        self.addresses[i], timedelta(seconds=60), lambda p=process: p.poll() is None
                    )
                except (ChildProcessError, TimeoutError) as exc:
                    tail = (self.folder / f"referee-{i}.log").read_text()[-2000:]
                    raise SystemExit(f"referee-{i} did not start: {exc}\n{tail}") from None

    def cpu(self) -> float:
        """CPU seconds of every referee process so far."""
        return sum(cpu_seconds(p.pid) for p in self.processes)

    def routed(self) -> dict[str, float]:
        """`arena_referee_routed_messages_total` summed over the referees, by direction."""
        totals: Counter[str] = Counter()
        for port in self.metrics_ports:
            url = f"http://127.0.0.1:{port}/metrics"
            with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=5) as reply:
                for line in reply.read().decode().splitlines():
                    if line.startswith("arena_referee_routed_messages_total{"):
                        direction = line.split('direction="', 1)[1].split('"', 1)[0]
                        totals[direction] += float(line.rsplit(" ", 1)[1])
        return dict(totals)

    def stop(self) -> None:
        """SIGTERM every referee (they drain), SIGKILL what is left after 30 s."""
        for process in self.processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@contextlib.contextmanager
def running_fleet(count: int) -> Iterator[tuple[Fleet, str]]:
    """`count` referees over a throwaway database; (the fleet, where the database lives)."""
    redis_url = os.environ.get(services.ENV_REDIS_URL) or services.redis_url()
    with throwaway_database() as (url, where), tempfile.TemporaryDirectory() as folder:
        fleet = Fleet(count, url, redis_url, Path(folder))
        try:
            fleet.start()
            yield fleet, where
        finally:
            fleet.stop()


# -- one run --------------------------------------------------------------------------------------
@dataclass
class Phase:
    """What one set of batches did."""

    decisions: int = 0
    seconds: float = 0.0
    aborted: int = 0
    cpu: dict[str, float] = field(default_factory=dict)
    cycles: list[float] = field(default_factory=list)
    paths: dict[str, list[float]] = field(default_factory=dict)
    """The decision cycles by path: local (both bots on the host), routed (both elsewhere)."""
    hosts: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    routed: dict[str, float] = field(default_factory=dict)
    """Envelopes between referees during the phase, by direction (the relay's counter)."""
    bot_messages: int = 0
    """Requests the bots received plus answers they sent."""


def cycles(
    events: Sequence[Sequence[float]], hosts: dict[int, int]
) -> tuple[list[float], dict[str, list[float]]]:
    """Seconds from an answer leaving to the match's next request arriving, from every bot's
    (match, time, kind, referee) events (all processes share the machine's monotonic clock); a
    request is counted only right after an answer. Also by path: "local" when the answering bot
    and the next asked bot are both connected to the match's host (`hosts`: match -> referee
    index), "routed" when both are connected elsewhere (both legs cross Redis), else "mixed"."""
    by_match: dict[int, list[tuple[float, int, int]]] = {}
    for match_id, at, kind, referee in events:
        by_match.setdefault(int(match_id), []).append((at, int(kind), int(referee)))
    gaps: list[float] = []
    paths: dict[str, list[float]] = {"local": [], "routed": [], "mixed": []}
    for match_id, timeline in by_match.items():
        timeline.sort()
        host = hosts.get(match_id, -1)
        for (before, was, answered_on), (after, kind, asked_on) in itertools.pairwise(timeline):
            if was == 1 and kind == 0:
                gaps.append(after - before)
                on_host = (answered_on == host) + (asked_on == host)
                path = "local" if on_host == 2 else "routed" if on_host == 0 else "mixed"
                paths[path].append(after - before)
    return gaps, paths


async def until_connected(api: arena_pb2_grpc.ArenaServiceStub, names: set[str]) -> None:
    """Wait until every bot of `names` has an open stream to the referee behind `api`."""
    for _ in range(1200):
        connected = {b.name for b in (await api.ListBots(arena_pb2.ListBotsRequest())).bots}
        if names <= connected:
            return
        await asyncio.sleep(0.05)
    raise TimeoutError(f"{len(names - connected)} bots did not connect within 60s")


async def until_done(
    api: arena_pb2_grpc.ArenaServiceStub, ids: list[int], timeout: float
) -> list[arena_pb2.Match]:
    """Poll until every match of `ids` has ended.

    One GetMatch per poll, of the first match not yet seen ended: asking for every match each
    time (64 calls every 0.1 s at K=64) cost the referee a few percent of its CPU, which the
    benchmark then counted as the referee's own. When a match ends is read from its
    `finished_at`, so how often this polls changes no figure."""
    deadline = time.monotonic() + timeout
    ended: dict[int, arena_pb2.Match] = {}
    for match_id in ids:
        while True:
            match = await api.GetMatch(
                arena_pb2.GetMatchRequest(match_id=match_id), metadata=ADMIN_METADATA
            )
            if match.status in DONE:
                ended[match_id] = match
                break
            if time.monotonic() > deadline:
                waiting = [i for i in ids if i not in ended]
                raise TimeoutError(
                    f"matches {waiting[:10]} did not end within {timeout:.0f}s: with bots on "
                    "other referees this needs routing between referees"
                )
            await asyncio.sleep(0.1)
    return [ended[i] for i in ids]


async def play(
    fleet: Fleet,
    prefix: str,
    game: str,
    seats: int,
    batches: list[list[int]],
    bot_referee: Callable[[int, int], int],
    creator: Callable[[int], int],
    form: int,
    timeout: float,
    follow: bool = True,
) -> Phase:
    """Play `batches` of seeds; seat s of match i connects to referee `bot_referee(i, s)` (and
    moves to its match's host if `follow`) and match i is created through referee
    `creator(i)`."""
    channels = [grpc.aio.insecure_channel(a) for a in fleet.addresses]
    apis = [arena_pb2_grpc.ArenaServiceStub(c) for c in channels]
    phase = Phase()
    host_of: dict[int, int] = {}
    try:
        seeds = [s for batch in batches for s in batch]
        names = {seed: [f"{prefix}-{seed}-{s}" for s in range(seats)] for seed in seeds}
        plans: list[list[tuple[str, int]]] = [[] for _ in fleet.addresses]
        on_referee: list[set[str]] = [set() for _ in fleet.addresses]
        for i, seed in enumerate(seeds):
            for s, name in enumerate(names[seed]):
                reply = await apis[0].RegisterBot(
                    arena_pb2.RegisterBotRequest(name=name), metadata=ADMIN_METADATA
                )
                plans[bot_referee(i, s)].append((reply.token, seed))
                on_referee[bot_referee(i, s)].add(name)
        async with bot_groups(fleet.addresses, plans, form, follow) as groups:
            for api, wanted in zip(apis, on_referee, strict=True):
                await until_connected(api, wanted)
            pids = [g.process.pid for g in groups]
            before = _cpu(fleet, pids)
            routed_before = fleet.routed()
            index = 0
            for batch in batches:
                began = time.time()
                requests = []
                for seed in batch:
                    request = arena_pb2.CreateMatchRequest(game=game, bots=names[seed], seed=seed)
                    requests.append(
                        apis[creator(index)].CreateMatch(request, metadata=ADMIN_METADATA)
                    )
                    index += 1
                ids = [int(m.match_id) for m in await asyncio.gather(*requests)]
                ended = await until_done(apis[0], ids, timeout)
                phase.seconds += max(m.finished_at.ToNanoseconds() for m in ended) / 1e9 - began
                phase.decisions += sum(m.decisions for m in ended)
                phase.aborted += sum(m.status == common_pb2.MATCH_STATUS_ABORTED for m in ended)
                if HAS_HOST:
                    phase.hosts.update(str(getattr(m, HOST_FIELD)) for m in ended)
                    for m in ended:
                        host = str(getattr(m, HOST_FIELD))
                        if host in fleet.names:
                            host_of[int(m.match_id)] = fleet.names.index(host)
            after = _cpu(fleet, pids)
            phase.cpu = _spent(before, after)
            routed_after = fleet.routed()
            phase.routed = {k: v - routed_before.get(k, 0.0) for k, v in routed_after.items()}
            events = []
            for group in groups:
                report = await group.finish()
                for *event, name in report.get("events", []):
                    # Where the bot's stream was open then (it may have followed its match).
                    on = fleet.names.index(name) if name in fleet.names else group.referee
                    events.append((*event, on))
                phase.problems += report.get("problems", [])
            phase.bot_messages = len(events)
            phase.cycles, phase.paths = cycles(events, host_of)
    finally:
        for channel in channels:
            await channel.close()
    return phase


def _cpu(fleet: Fleet, bot_pids: list[int]) -> dict[str, Any]:
    return {
        "referees": fleet.cpu(),
        "bots": sum(cpu_seconds(pid) for pid in bot_pids),
        "postgres": backend_cpu(fleet.database_url),
        "machine": machine_cpu_seconds(),
    }


def _spent(before: dict[str, Any], after: dict[str, Any]) -> dict[str, float]:
    """CPU seconds spent between two `_cpu` readings; a backend born in between counts whole."""
    spent = {k: after[k] - before[k] for k in ("referees", "bots", "machine")}
    backends = after["postgres"]
    spent["postgres"] = sum(cpu - before["postgres"].get(pid, 0.0) for pid, cpu in backends.items())
    return {k: spent[k] for k in ("referees", "bots", "postgres", "machine")}


# -- report ---------------------------------------------------------------------------------------
def report_phase(title: str, phase: Phase) -> None:
    """Print one phase's figures."""
    rate = phase.decisions / phase.seconds if phase.seconds else 0.0
    print(
        f"{title}: {phase.decisions:,} decisions in {phase.seconds:.2f}s = {rate:,.0f} "
        f"decisions/s" + (f" ({phase.aborted} matches aborted)" if phase.aborted else "")
    )
    if phase.decisions:
        per = 1e6 / phase.decisions
        parts = ", ".join(f"{k} {v * per:,.0f}" for k, v in phase.cpu.items())
        print(f"  CPU us per decision: {parts}")
        share = phase.cpu.get("referees", 0.0) / phase.seconds if phase.seconds else 0.0
        print(f"  referee processes used {share:.0%} of a core together")
    if phase.cycles:
        c = phase.cycles
        print(
            f"  decision cycle (answer out to next request in, {len(c):,} samples): "
            f"p50 {ms(percentile(c, 0.5))}, p99 {ms(percentile(c, 0.99))}"
        )
    for path, samples in phase.paths.items():
        if samples:
            print(
                f"    {path} ({len(samples):,}): p50 {ms(percentile(samples, 0.5))}, "
                f"p99 {ms(percentile(samples, 0.99))}"
            )
    local, routed = phase.paths.get("local"), phase.paths.get("routed")
    if local and routed:
        for name, q in (("p50", 0.5), ("p99", 0.99)):
            added = percentile(routed, q) - percentile(local, q)
            print(f"  added by routing, {name} (routed - local, same run): {ms(added)}")
    if phase.bot_messages:
        out = phase.routed.get("out", 0.0)
        print(
            f"  relay: {out:,.0f} envelopes between referees for {phase.bot_messages:,} "
            f"requests and answers: {out / phase.bot_messages:.1%} of the bot messages' count"
        )
    if HAS_HOST:
        print(f"  hosts: {dict(sorted(phase.hosts.items()))}")
    for problem in phase.problems[:5]:
        print(f"  bot problem: {problem}")


def run(args: Any, batches: list[list[int]], form: int) -> int:
    """The `--referees N` benchmark; `args` are bench/referee.py's."""
    try:
        return _run(args, batches, form)
    except TimeoutError as exc:
        print(f"gave up: {exc}", file=sys.stderr)
        return 1


def _run(args: Any, batches: list[list[int]], form: int) -> int:
    n = args.referees
    if args.routed and n < 2:
        raise SystemExit("--routed needs --referees 2 or more")
    print(__doc__.split("\n\n")[0])
    print()
    print(
        f"{n} referee process{'es' if n > 1 else ''}, game {args.game}, {args.seats} seats, "
        f"{args.matches} concurrent matches x {args.rounds} rounds, bots ask for the "
        f"{args.form} form"
    )
    with running_fleet(n) as (fleet, where):
        print(f"database: a throwaway database on {where}; Redis {fleet.redis_url.split('@')[-1]}")
        pairs = zip(fleet.addresses, fleet.names, strict=True)
        print(f"referees: {', '.join(f'{address} ({name})' for address, name in pairs)}")
        if not HAS_HOST:
            print("Match has no `host` field in this version: hosts are not reported")
        common = (args.game, args.seats, batches)
        if not args.routed:
            seats = args.seats
            spread: Callable[[int, int], int] = (
                (lambda i, s: (i * seats + s) % n) if args.spread == "bot" else (lambda i, s: i % n)
            )
            spread_note = f"s, bots spread by {args.spread}" if n > 1 else ""
            modes = {"on": [True], "off": [False], "both": [False, True]}[args.follow]
            phases = []
            for round_, follow in enumerate(modes):
                phase = asyncio.run(
                    play(
                        *(fleet, f"t{round_}", *common, spread, lambda i: i % n, form),
                        *(args.timeout, follow),
                    )
                )
                phases.append((f"{n} referee{spread_note}, bots follow: {follow}", phase))
            print()
            for title, phase in phases:
                report_phase(title, phase)
        else:
            local = asyncio.run(
                play(fleet, "l", *common, lambda i, s: 0, lambda i: 0, form, args.timeout)
            )
            routed = asyncio.run(
                play(fleet, "r", *common, lambda i, s: 0, lambda i: 1, form, args.timeout)
            )
            print()
            report_phase("local (bots on referee-0, created through referee-0)", local)
            report_phase("routed (bots on referee-0, created through referee-1)", routed)
            if local.cycles and routed.cycles:
                for name, q in (("p50", 0.5), ("p99", 0.99)):
                    added = percentile(routed.cycles, q) - percentile(local.cycles, q)
                    print(f"added by routing, {name} decision cycle (routed - local): {ms(added)}")
        print(f"routed messages (all referees' metrics): {fleet.routed() or 'none counted'}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--timed-bot-worker"]:
        asyncio.run(timed_bot_worker())
