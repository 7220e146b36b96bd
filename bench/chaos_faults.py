"""The chaos soak's seeded fault injector: a schedule drawn from a seed before the run (printed,
so a seed reproduces it), applied on time, each fault healed after its duration and timed until
the arena has recovered.

Kinds: `referee-kill` (SIGKILL, started again after the duration), `referee-pause` (SIGSTOP for
5-20 s, then SIGCONT), `worker-kill` (SIGKILL of a Celery worker and its prefork children, started
again; beat sends tasks every 2 s, so the worker is often mid-task), `redis-stop` and
`postgres-stop` (2-10 s; Redis with SIGTERM, Postgres with a fast shutdown), `bot-kill` (SIGKILL,
started again), and, drawn only when asked for (`--kinds`) since adding it to the default set
would change every seed's schedule, `referee-partition` (5-20 s cut off from Redis in its
network namespace: arena/chaos/netns.py; root only). Unless `brutal`, no fault takes down the
last referee that is neither killed, paused nor cut off.
"""

from __future__ import annotations

import random
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

import psycopg
from chaos_arena import CLOSED, Arena, is_serving
from chaos_load import Load

KINDS = ("referee-kill", "referee-pause", "worker-kill", "redis-stop", "postgres-stop", "bot-kill")
"""The kinds drawn by default."""
ALL_KINDS = (*KINDS, "referee-partition")
"""Every kind `--kinds` may name."""
DURATIONS = {
    "referee-kill": (2.0, 8.0),
    "referee-pause": (5.0, 20.0),
    "worker-kill": (1.0, 5.0),
    "redis-stop": (2.0, 10.0),
    "postgres-stop": (2.0, 10.0),
    "bot-kill": (1.0, 5.0),
    "referee-partition": (5.0, 20.0),
}
RECOVERY_LIMIT = 90.0
"""A recovery not seen within this many seconds of healing is recorded as this (and printed)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One scheduled fault: when (seconds from the start), what, on which process, how long."""

    at: float
    kind: str
    target: int
    duration: float

    def __str__(self) -> str:
        return f"t={self.at:6.1f}s {self.kind:<17} #{self.target} for {self.duration:4.1f}s"


def schedule(
    seed: int,
    until: float,
    every: float,
    *,
    referees: int,
    workers: int,
    bots: int,
    brutal: bool = False,
    kinds: tuple[str, ...] = KINDS,
) -> list[Fault]:
    """Faults of `kinds` from 5 s to `until`, about `every` seconds apart, drawn from `seed`
    (the full set of kinds draws the same schedule as before `kinds` existed)."""
    rng = random.Random(seed)
    busy: dict[tuple[str, int], float] = {}
    counts = {"referee": referees, "worker": workers, "redis": 1, "postgres": 1, "bot": bots}
    out: list[Fault] = []
    at = 5.0
    while at < until:
        kind = rng.choice(kinds)
        low, high = DURATIONS[kind]
        duration = round(rng.uniform(low, high), 1)
        what = kind.split("-")[0]
        free = [i for i in range(counts[what]) if busy.get((what, i), 0.0) <= at]
        referees_down = sum(1 for i in range(referees) if busy.get(("referee", i), 0.0) > at)
        if what == "referee" and not brutal and referees_down + 1 >= referees:
            free = []
        if free:
            target = rng.choice(free)
            busy[what, target] = at + duration + 1.0
            out.append(Fault(round(at, 1), kind, target, duration))
        at += rng.uniform(0.5, 1.5) * every
    return out


def _start_postgres(arena: Arena, attempts: int = 5) -> str:
    """Start Postgres again, retrying a failed start (once, in a 7-minute soak, a start failed and
    left the database down for the rest of the run); what went wrong, if anything."""
    failures = []
    for attempt in range(attempts):
        if CLOSED.is_set():
            break
        try:
            arena.postgres.start()
        except Exception as exc:  # report and retry: a soak without its database measures nothing
            failures.append(f"start {attempt + 1} failed: {type(exc).__name__}: {exc}")
            time.sleep(1.0)
            continue
        break
    return "; ".join(failures)


@dataclass
class Record:
    """What happened to one fault."""

    fault: Fault
    takeover: float | None = None
    """Seconds until no unfinished match was held by the faulted referee."""
    recovery: float | None = None
    """Seconds from healing until every live referee served and a decision was logged again."""
    note: str = ""
    began: float = 0.0
    """When it was inflicted (`time.monotonic()`)."""
    healed: float = 0.0
    """When it was healed (`time.monotonic()`); 0 if it never was."""


@dataclass
class Injector:
    """Applies a schedule to an arena; `records` says what each fault did."""

    arena: Arena
    load: Load
    records: list[Record] = field(default_factory=list)
    redis_outages: list[tuple[datetime, datetime]] = field(default_factory=list)
    """When Redis was down (UTC)."""
    replayed: set[int] = field(default_factory=set)
    """Finished matches the invariants have replayed already."""
    threads: list[threading.Thread] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, faults: list[Fault], started: float, stop: threading.Event) -> None:
        """Apply each fault at its time (a thread per fault), until the list or `stop` ends."""
        for fault in faults:
            if stop.wait(max(0.0, started + fault.at - time.monotonic())):
                return
            print(f"  fault {fault}", flush=True)
            thread = threading.Thread(target=self.apply, args=(fault,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def join(self) -> None:
        """Wait until every fault has healed and been timed."""
        for thread in self.threads:
            thread.join()

    def apply(self, fault: Fault) -> None:
        """Inflict `fault`, heal it after its duration, time the recovery."""
        record = Record(fault)
        try:
            self._apply(fault, record)
        except Exception as exc:  # a soak reports a failing fault, it does not stop for it
            record.note = f"{type(exc).__name__}: {exc}"
        with self.lock:
            self.records.append(record)

    def _apply(self, fault: Fault, record: Record) -> None:
        arena, kind = self.arena, fault.kind
        record.began = time.monotonic()
        if kind in ("referee-kill", "referee-pause", "referee-partition"):
            referee = arena.referees[fault.target]
            began = time.monotonic()
            if kind == "referee-kill":
                referee.kill()
            elif kind == "referee-pause":
                referee.pause()
            elif arena.namespaces:
                arena.namespaces.cut(fault.target)
            record.takeover = self._takeover(referee.name, began, began + fault.duration)
            time.sleep(max(0.0, began + fault.duration - time.monotonic()))
            if kind == "referee-kill":
                referee.start()
            elif kind == "referee-pause":
                referee.resume()
            elif arena.namespaces:
                arena.namespaces.heal(fault.target)
        elif kind == "worker-kill":
            arena.workers[fault.target].kill()
            time.sleep(fault.duration)
            arena.workers[fault.target].start()
        elif kind == "redis-stop":
            down = datetime.now(UTC)
            arena.redis.stop()
            time.sleep(fault.duration)
            arena.redis.start()
            self.redis_outages.append((down, datetime.now(UTC)))
        elif kind == "postgres-stop":
            arena.postgres.stop()
            time.sleep(fault.duration)
            record.note = _start_postgres(arena)
        elif kind == "bot-kill":
            bot = self.load.bots[fault.target]
            bot.held = True
            if bot.process is not None:
                bot.process.kill()
                bot.process.wait()
            time.sleep(fault.duration)
            bot.start(arena)
            bot.held = False
        record.healed = time.monotonic()
        record.recovery = self._recovered(datetime.now(UTC), time.monotonic())

    def _takeover(self, host: str, began: float, pause_ends: float) -> float | None:
        """Seconds until no unfinished match names `host`; None if it held none, or still held
        some when it came back at `pause_ends` (a referee back in time keeps its matches)."""
        while True:
            try:
                with psycopg.connect(self.arena.database_url, connect_timeout=2) as conn:
                    row = conn.execute(
                        "SELECT count(*) FROM matches WHERE host = %s "
                        "AND status IN ('pending', 'running')",
                        (host,),
                    ).fetchone()
                held = int(row[0]) if row else 0
            except psycopg.Error:
                held = -1  # the database is down too: ask again
            if held == 0:
                elapsed = time.monotonic() - began
                return elapsed if elapsed > 0.6 else None
            if time.monotonic() >= pause_ends:  # healed first: it keeps its own matches
                return None
            time.sleep(0.5)

    def _recovered(self, healed_at: datetime, healed: float) -> float:
        """Seconds from `healed` until every live referee serves and a decision is logged."""
        while time.monotonic() < healed + RECOVERY_LIMIT:
            serving = all(
                is_serving(a)
                for a, r in zip(self.arena.addresses, self.arena.referees, strict=True)
                if r.alive and not r.paused
            )
            if serving and self._decided_since(healed_at):
                return time.monotonic() - healed
            time.sleep(0.25)
        return RECOVERY_LIMIT

    def _decided_since(self, moment: datetime) -> bool:
        try:
            with psycopg.connect(self.arena.database_url, connect_timeout=2) as conn:
                row = conn.execute(
                    "SELECT EXISTS (SELECT 1 FROM decisions WHERE created_at > %s)", (moment,)
                ).fetchone()
            return bool(row and row[0])
        except psycopg.Error:
            return False

    def summary(self) -> list[str]:
        """Faults by kind, the longest takeover and the longest recovery of each kind."""
        by_kind: defaultdict[str, list[Record]] = defaultdict(list)
        for record in self.records:
            by_kind[record.fault.kind].append(record)
        lines = [f"faults injected: {len(self.records)}"]
        for kind in [k for k in ALL_KINDS if k in KINDS or k in by_kind]:
            records = by_kind.get(kind, [])
            recoveries = sorted(r.recovery for r in records if r.recovery is not None)
            median = recoveries[len(recoveries) // 2] if recoveries else 0.0
            worst = recoveries[-1] if recoveries else 0.0
            takeovers = sorted(r.takeover for r in records if r.takeover is not None)
            lines.append(
                f"  {kind:<17} {len(records):4d}   recovery median {median:5.1f}s  "
                f"longest {worst:5.1f}s"
                + (
                    f"   takeover (of {len(takeovers)}) median "
                    f"{takeovers[len(takeovers) // 2]:4.1f}s longest {takeovers[-1]:4.1f}s"
                    if takeovers
                    else ""
                )
            )
        for record in self.records:
            if record.note:
                lines.append(f"  fault {record.fault}: {record.note}")
        return lines
