"""The named invariant checks and their runner; the match and decision-log checks live here.

A check takes an open connection and a `Context` and returns its violations (sentences). Those
marked `always` must hold at any moment of a soak, faults or not; the others hold once the arena
has settled (`final`): every lease renewed or taken over, every round closed or closable.
`arena.chaos.runner` runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg

import engines
from engines import EngineError, Outcome, Record, Termination
from engines.replay import replayed

Conn = psycopg.Connection[Any]


@dataclass
class Context:
    """What the checks know beyond the database."""

    live_hosts: frozenset[str] | None = None
    """Names of the referees running now; None when unknown (the lease-holder check is skipped)."""
    takeover: timedelta = timedelta(seconds=30)
    """How long after a referee dies its leases may still name it (lease time plus a scan)."""
    pending_limit: timedelta = timedelta(seconds=90)
    """How long a match may stay pending (its connect timeout plus a lease for a takeover)."""
    answer_logs: Sequence[Path] = ()
    """JSON-lines logs of the bots' answers (`arena.chaos.answers`)."""
    replayed: set[int] = field(default_factory=set)
    """Finished matches already replayed by an earlier run (each is replayed once)."""
    redis_outages: Sequence[tuple[datetime, datetime]] = ()
    """When Redis was down (start, end): see `excuse_relay_losses`."""
    excuse_relay_losses: timedelta | None = None
    """Issue 26's first defect (the relay loses the messages it cannot deliver while Redis is
    down: a bot's answer, the Problem telling it that its answer was lost): when set, an
    acknowledged answer missing from a decision logged within this long after a Redis outage
    began (until it ended plus this) goes to `excused`, not to the violations."""
    excused: list[str] = field(default_factory=list)
    """Violations put down to a known defect (with `excuse_relay_losses`)."""


Check = Callable[[Conn, Context], list[str]]


@dataclass(frozen=True, slots=True)
class Invariant:
    """A named check, and whether it must hold at any moment or only once settled."""

    name: str
    check: Check
    always: bool


REGISTRY: list[Invariant] = []


def invariant(name: str, *, always: bool) -> Callable[[Check], Check]:
    """Register `check` under `name`."""

    def add(check: Check) -> Check:
        REGISTRY.append(Invariant(name, check, always))
        return check

    return add


# -- matches ---------------------------------------------------------------------------------------
@invariant("match-status", always=True)
def match_status(conn: Conn, context: Context) -> list[str]:
    """Every aborted match has a reason; finished ones have an outcome and no lease."""
    out = []
    for (match_id,) in conn.execute(
        "SELECT id FROM matches WHERE status = 'aborted' AND coalesce(termination, '') = ''"
    ):
        out.append(f"match {match_id} is aborted without a reason")
    for match_id, missing in conn.execute(
        "SELECT m.id, count(*) FROM matches m JOIN seats s ON s.match_id = m.id "
        "WHERE m.status = 'finished' AND s.rank IS NULL GROUP BY m.id"
    ):
        out.append(f"match {match_id} is finished with {missing} seat(s) unranked")
    return out


@invariant("leases", always=False)
def leases(conn: Conn, context: Context) -> list[str]:
    """Every running match is on a live lease held by a live referee; none pending too long."""
    out = []
    for match_id, host, lapsed in conn.execute(
        "SELECT id, host, lease_expires < now() - %s FROM matches WHERE status = 'running' "
        "AND (host IS NULL OR lease_expires IS NULL OR lease_expires < now() - %s)",
        (context.takeover, context.takeover),
    ):
        out.append(f"match {match_id} is running with no live lease (host {host}, {lapsed=})")
    for match_id, age in conn.execute(
        "SELECT id, now() - created_at FROM matches WHERE status = 'pending' "
        "AND created_at < now() - %s",
        (context.pending_limit,),
    ):
        out.append(f"match {match_id} has been pending for {age}")
    if context.live_hosts is not None:
        for match_id, host in conn.execute(
            "SELECT id, host FROM matches WHERE status IN ('pending', 'running') "
            "AND host IS NOT NULL AND NOT host = ANY(%s)",
            (sorted(context.live_hosts),),
        ):
            out.append(f"match {match_id} is still held by {host}, which is not running")
    return out


# -- the decision log -----------------------------------------------------------------------------
@invariant("decision-numbering", always=True)
def decision_numbering(conn: Conn, context: Context) -> list[str]:
    """Each match's decisions are numbered 0..n-1: no gap (the key forbids duplicates)."""
    return [
        f"match {match_id}: {count} decisions numbered {low}..{high}"
        for match_id, count, low, high in conn.execute(
            "SELECT match_id, count(*), min(number), max(number) FROM decisions "
            "GROUP BY match_id HAVING min(number) <> 0 OR max(number) <> count(*) - 1"
        )
    ]


@invariant("epochs", always=True)
def epochs(conn: Conn, context: Context) -> list[str]:
    """A decision is never written under an older epoch than the one before it (a fenced-out
    host wrote after a takeover), nor under an epoch the match has not reached."""
    out = [
        f"match {match_id}: decision {number} has epoch {epoch} after one with {before}"
        for match_id, number, epoch, before in conn.execute(
            "SELECT match_id, number, epoch, before FROM ("
            "  SELECT match_id, number, epoch,"
            "         max(epoch) OVER (PARTITION BY match_id ORDER BY number"
            "                          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before"
            "  FROM decisions) d WHERE epoch < before"
        )
    ]
    out += [
        f"match {match_id}: decision {number} has epoch {epoch}, above the match's {lease}"
        for match_id, number, epoch, lease in conn.execute(
            "SELECT d.match_id, d.number, d.epoch, m.lease_epoch FROM decisions d "
            "JOIN matches m ON m.id = d.match_id WHERE d.epoch > m.lease_epoch"
        )
    ]
    return out


@invariant("replay", always=True)
def replay(conn: Conn, context: Context) -> list[str]:
    """Every finished match replays through its engine to the outcome stored on its seats."""
    out = []
    rows = conn.execute(
        "SELECT id, game, rules_version, options, seats, seed FROM matches "
        "WHERE status = 'finished' ORDER BY id"
    ).fetchall()
    for match_id, game, version, options, seat_count, seed in rows:
        if match_id in context.replayed:
            continue
        moves = conn.execute(
            "SELECT joint FROM decisions WHERE match_id = %s ORDER BY number", (match_id,)
        ).fetchall()
        stored = conn.execute(
            "SELECT rank, score, forfeited FROM seats WHERE match_id = %s ORDER BY seat",
            (match_id,),
        ).fetchall()
        record = Record(
            game=game,
            rules_version=version,
            options=options,
            seats=seat_count,
            seed=seed,
            moves=tuple({int(s): a for s, a in joint.items()} for (joint,) in moves),
        )
        problem = _replay_problem(record, stored)
        if problem:
            out.append(f"match {match_id}: {problem}")
        else:
            context.replayed.add(match_id)
    return out


def _replay_problem(record: Record, stored: Sequence[tuple[Any, ...]]) -> str:
    """What differs between `record` replayed and the stored (rank, score, forfeited) seats."""
    try:
        driver = replayed(engines.get(record.game), record)
    except EngineError as exc:
        return f"does not replay: {exc}"
    played = driver.outcome()
    if played is None:
        return f"replays to an unfinished position after {len(record.moves)} decisions"
    expected = ranked(played, [bool(row[2]) for row in stored])
    ranks = tuple(row[0] for row in stored)
    scores = tuple(row[1] for row in stored)
    if ranks != expected.ranks or scores != expected.scores:
        return (
            f"replays to ranks {expected.ranks} scores {expected.scores}, "
            f"stored ranks {ranks} scores {scores}"
        )
    return ""


def ranked(outcome: Outcome, forfeited: Sequence[bool]) -> Outcome:
    """The rules' outcome with forfeited seats below every other (as the referee ranks them)."""
    if not any(forfeited):
        return outcome
    keys = [(0.0 if gone else 1.0, -float(outcome.ranks[i])) for i, gone in enumerate(forfeited)]
    return Outcome.from_keys(keys, outcome.scores, Termination.FORFEIT)
