"""Version tests in Postgres: start one, stop one, read one with its sets and matches."""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.sql import query
from arena.tournament.formats import table_rules
from arena.versiontest.entrants import parse_entrant, resolve
from arena.versiontest.gsprt import Estimate, Hypotheses, estimate, llr
from arena.versiontest.sets import MATCHES_PER_SET

MAX_FILLERS = 8


class TestStatus(enum.StrEnum):
    """Where a test stands (stored as its value)."""

    __test__ = False  # not a pytest class

    RUNNING = "running"
    H0 = "h0"
    H1 = "h1"
    CAPPED = "capped"
    STOPPED = "stopped"


class SetStatus(enum.StrEnum):
    """Where a set stands (stored as its value)."""

    PLAYING = "playing"
    COUNTED = "counted"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class VersionTestSpec:
    __test__ = False  # not a pytest class
    """What `start` needs: the sides, the hypotheses and how to play."""

    game: str
    candidate: str
    baseline: str
    hypotheses: Hypotheses
    seats: int = 2
    fillers: tuple[str, ...] = ()
    max_matches: int | None = None
    in_flight: int = 2
    clock: Clock | None = None
    options: dict[str, Any] | None = None
    owner_id: int | None = None
    """The account starting the test (None: the operator, before accounts)."""


@dataclass(frozen=True, slots=True)
class VersionTest:
    """A stored test and where it stands."""

    id: int
    game: str
    candidate: str
    baseline: str
    fillers: tuple[str, ...]
    seats: int
    hypotheses: Hypotheses
    max_matches: int | None
    status: TestStatus
    llr: float
    created_at: datetime
    finished_at: datetime | None
    owner: str | None = None
    """The name of the account that started the test."""


@dataclass(frozen=True, slots=True)
class Listed:
    """A test as the list shows it."""

    id: int
    game: str
    candidate: str
    baseline: str
    seats: int
    elo0: float
    elo1: float
    alpha: float
    beta: float
    status: TestStatus
    llr: float
    sets_counted: int
    owner: str
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class SetRow:
    """One set of a test."""

    set_no: int
    attempt: int
    status: SetStatus
    score: float | None
    llr: float | None
    counted_at: datetime | None
    match_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Report:
    """A test with its sets and its estimate."""

    test: VersionTest
    sets: tuple[SetRow, ...]
    estimate: Estimate

    @property
    def matches_counted(self) -> int:
        """Matches in counted sets."""
        return MATCHES_PER_SET * sum(s.status is SetStatus.COUNTED for s in self.sets)


async def start(db: Database, spec: VersionTestSpec) -> int:
    """Store a new running test; `ValueError`/`LookupError` name what is wrong."""
    table_rules(spec.game, spec.seats)
    candidate, baseline = parse_entrant(spec.candidate), parse_entrant(spec.baseline)
    if candidate == baseline:
        raise ValueError("the candidate and the baseline must be different bots or versions")
    fillers = [parse_entrant(f) for f in spec.fillers]
    if len(fillers) < spec.seats - 2:
        raise ValueError(
            f"a {spec.seats}-seat test needs {spec.seats - 2} different filler bots (--fillers)"
        )
    if len(set(fillers)) != len(fillers):
        raise ValueError("each filler bot may be named once")
    if len(fillers) > MAX_FILLERS:
        raise ValueError(f"at most {MAX_FILLERS} filler bots")
    if {candidate, baseline} & set(fillers):
        raise ValueError("a filler cannot be the candidate or the baseline")
    if spec.max_matches is not None and spec.max_matches < MATCHES_PER_SET:
        raise ValueError(f"--max-matches must be at least {MATCHES_PER_SET}")
    if not 1 <= spec.in_flight <= 64:
        raise ValueError("sets in flight must be 1..64")
    async with db.transaction("start version test") as conn:
        ids = [await resolve(conn, e) for e in (candidate, baseline, *fillers)]
        if ids[0] == ids[1]:
            raise ValueError("the candidate and the baseline must be different bots or versions")
        hyp = spec.hypotheses
        cursor = await conn.execute(
            query("insert_version_test"),
            {
                "game": spec.game,
                "options": Jsonb(spec.options or {}),
                "clock": Jsonb((spec.clock or Clock()).to_json()),
                "seats": spec.seats,
                "candidate_id": ids[0],
                "baseline_id": ids[1],
                "filler_ids": ids[2:] if spec.seats > 2 else [],
                "elo0": hyp.elo0,
                "elo1": hyp.elo1,
                "alpha": hyp.alpha,
                "beta": hyp.beta,
                "max_matches": spec.max_matches,
                "in_flight": spec.in_flight,
                "seed": random.SystemRandom().randrange(1, 1 << 62),
                "owner_id": spec.owner_id,
            },
        )
        row = await cursor.fetchone()
        assert row is not None
        return int(row[0])


async def stop(db: Database, test_id: int) -> None:
    """Stop a running test (matches playing finish uncounted); `LookupError` if none runs."""
    async with db.transaction("stop version test") as conn:
        cursor = await conn.execute(query("stop_version_test"), {"test_id": test_id})
        if await cursor.fetchone() is None:
            raise LookupError(f"no running version test {test_id}")


async def report(db: Database, test_id: int) -> Report:
    """A test, its sets (with their matches) and its Elo estimate; `LookupError` if none."""
    async with (
        db.transaction("read version test") as conn,
        conn.cursor(row_factory=dict_row) as cur,
    ):
        await cur.execute(query("version_test"), {"test_id": test_id})
        row = await cur.fetchone()
        if row is None:
            raise LookupError(f"no version test {test_id}")
        await cur.execute(query("version_test_sets"), {"test_id": test_id})
        set_rows = await cur.fetchall()
        await cur.execute(query("version_test_matches"), {"test_id": test_id})
        match_rows = await cur.fetchall()
    matches: dict[int, list[int]] = {}
    for m in match_rows:
        matches.setdefault(int(m["set_no"]), []).append(int(m["match_id"]))
    sets = tuple(
        SetRow(
            set_no=s["set_no"],
            attempt=s["attempt"],
            status=SetStatus(s["status"]),
            score=s["score"],
            llr=s["llr"],
            counted_at=s["counted_at"],
            match_ids=tuple(matches.get(s["set_no"], [])),
        )
        for s in set_rows
    )
    counts: dict[float, float] = {}
    for s in sets:
        if s.score is not None:
            counts[s.score] = counts.get(s.score, 0) + 1
    return Report(test=_test(row), sets=sets, estimate=estimate(counts))


async def listing(db: Database, status: TestStatus | None = None, limit: int = 50) -> list[Listed]:
    """The newest tests first, optionally only those of one status."""
    async with (
        db.transaction("list version tests") as conn,
        conn.cursor(row_factory=dict_row) as cur,
    ):
        params = {"status": None if status is None else status.value, "limit": limit}
        await cur.execute(query("list_version_tests"), params)
        rows = await cur.fetchall()
    return [
        Listed(**{**row, "status": TestStatus(row["status"])})  # the row's columns are the fields
        for row in rows
    ]


async def sides_owners(db: Database, test_id: int) -> tuple[int | None, int | None, int | None]:
    """(test owner, candidate's owner, baseline's owner); `LookupError` if there is no test."""
    async with db.transaction("read version test owners") as conn:
        cursor = await conn.execute(query("version_test_sides"), {"test_id": test_id})
        row = await cursor.fetchone()
    if row is None:
        raise LookupError(f"no version test {test_id}")
    return row[0], row[1], row[2]


def current_llr(scores: Sequence[tuple[float, int]], hypotheses: Hypotheses) -> float:
    """The LLR of counted set scores given as (score, count) pairs, over the full outcome grid."""
    counts = dict.fromkeys((k / (2 * MATCHES_PER_SET) for k in range(2 * MATCHES_PER_SET + 1)), 0.0)
    for score, count in scores:
        counts[score] = counts.get(score, 0.0) + count
    return llr(counts, hypotheses) if any(counts.values()) else 0.0


def _test(row: dict[str, Any]) -> VersionTest:
    return VersionTest(
        id=row["id"],
        game=row["game"],
        candidate=row["candidate"],
        baseline=row["baseline"],
        fillers=tuple(row["fillers"]),
        seats=row["seats"],
        hypotheses=Hypotheses(row["elo0"], row["elo1"], row["alpha"], row["beta"]),
        max_matches=row["max_matches"],
        status=TestStatus(row["status"]),
        llr=row["llr"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        owner=row.get("owner"),
    )
