"""Swiss tournaments over Postgres: create, pair, host tables, close rounds, rate, rank.

Every step is idempotent, so Celery can retry any of them after a worker dies:
- pairing a round inserts its tables under keys, so a second attempt finds the first's tables;
- a table's match is created under (tournament, round, table), so it is hosted once;
- closing a round locks the round's row, rates every match of the round from the ratings before
  the round in the same transaction that marks the matches rated and the round finished, so each
  match is rated exactly once and the order in which tables finish cannot change a rating.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from psycopg.rows import class_row, dict_row

import engines
from arena.ops import metrics
from arena.tournament.formats import Format, pair_round_robin
from arena.tournament.pairing import History, RoundResult, TableResult, pair_round, standings
from arena.tournament.rating_store import leaderboard, rate_match
from arena.tournament.rating_store import rate_closed_round as _rate_round
from arena.tournament.ratings import DEFAULT_K
from arena.tournament.setup import (
    NewTournament,
    create_tournament,
    insert_tournament,
    prepare_tournament,
)
from arena.tournament.standings import to_units

# Creating tournaments and writing ratings live in their own modules; these names stay here.
__all__ = [
    "NewTournament",
    "create_tournament",
    "insert_tournament",
    "leaderboard",
    "prepare_tournament",
    "rate_match",
]
from arena.storage import Database
from arena.storage.rows import MatchStatus, RoundRow, TournamentStatus
from arena.storage.sql import query

# Rounds whose tables have been waiting this long since their last dispatch are dispatched again.
REDISPATCH_AFTER = float(os.environ.get("ARENA_REDISPATCH_AFTER", "60"))


MAX_ATTEMPTS = 2
"""A table whose match aborts is replayed once; the schema's `matches_attempt_check` agrees."""


class RoundNotReady(Exception):
    """A round cannot close yet: some of its matches have not finished."""


@dataclass(frozen=True, slots=True)
class Table:
    """One table of a round."""

    round_no: int
    table_no: int
    bot_ids: tuple[int, ...]
    match_id: int | None = None
    """The latest attempt's match (None before the table is hosted)."""
    match_status: MatchStatus | None = None
    ranks: tuple[int, ...] = ()
    attempt: int = 0
    """1 for the first match, 2 for the replay after it aborted (0 before the table is hosted)."""

    @property
    def is_over(self) -> bool:
        """Whether the table is decided: its match finished, or its replay aborted too."""
        return self.match_status is MatchStatus.FINISHED or (
            self.match_status is MatchStatus.ABORTED and self.attempt >= MAX_ATTEMPTS
        )

    @property
    def needs_replay(self) -> bool:
        """Whether the table's first match aborted and its one replay has not been created."""
        return self.match_status is MatchStatus.ABORTED and self.attempt < MAX_ATTEMPTS


@dataclass(frozen=True, slots=True)
class Step:
    """What to do next after starting a tournament or closing a round."""

    round_no: int
    """The round to play now (0 when the tournament is over)."""
    tables: tuple[Table, ...]
    closed_now: bool = False
    """Whether this call closed the previous round (only that call dispatches the next one)."""

    @property
    def finished(self) -> bool:
        return self.round_no == 0


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of a tournament's standings."""

    position: int
    bot_id: int
    bot: str
    score: float
    tiebreak: float
    rating: float
    byes: int
    rounds_played: int
    withdrawn: bool = False
    """Whether the bot has left the tournament (it keeps its place in the standings)."""


async def tournament(db: Database, tournament_id: int) -> dict[str, Any] | None:
    """The tournament's row as a dict, or None."""
    async with db.transaction("read tournament") as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query("tournament"), {"tournament_id": tournament_id})
        return await cur.fetchone()


async def list_tournaments(
    db: Database, status: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """The newest tournaments."""
    async with db.transaction("list tournaments") as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query("list_tournaments"), {"status": status, "limit": limit})
        return await cur.fetchall()


async def due_tournaments(db: Database) -> list[int]:
    """Scheduled tournaments whose start time has come."""
    async with db.transaction("find due tournaments") as conn:
        cursor = await conn.execute(query("due_tournaments"))
        return [int(r[0]) for r in await cursor.fetchall()]


# -- playing -------------------------------------------------------------------------------------
async def start(db: Database, tournament_id: int) -> Step:
    """Mark the tournament running and pair its first round; repeating it changes nothing."""
    async with db.transaction("start tournament") as conn:
        await conn.execute(query("set_tournament_running"), {"tournament_id": tournament_id})
    info = await tournament(db, tournament_id)
    if info is None:
        raise LookupError(f"no tournament {tournament_id}")
    if info["status"] is TournamentStatus.FINISHED:
        return Step(0, ())
    return Step(
        max(1, info["current_round"]), await pair(db, tournament_id, max(1, info["current_round"]))
    )


async def pair(db: Database, tournament_id: int, round_no: int) -> tuple[Table, ...]:
    """The tables of `round_no`, pairing it first if nobody has."""
    existing = await tables(db, tournament_id, round_no)
    if existing:
        return existing
    began = time.perf_counter()
    info = await tournament(db, tournament_id)
    assert info is not None
    if info["forfeit_limit"] is not None:
        async with db.transaction(f"withdraw forfeiters before round {round_no}") as conn:
            await conn.execute(
                query("withdraw_forfeiters"), {"tournament_id": tournament_id, "round_no": round_no}
            )
    entrants, history = await _standings_and_history(db, tournament_id, info, round_no)
    rules = engines.get(info["game"])
    pair_with = pair_round_robin if info["format"] == Format.ROUND_ROBIN else pair_round
    pairing = pair_with(
        entrants, history, info["table_size"], rules.seat_counts, info["seed"], round_no
    )
    metrics.PAIRING_SECONDS.observe(time.perf_counter() - began)
    async with db.transaction(f"pair round {round_no}") as conn:
        key = {"tournament_id": tournament_id, "round_no": round_no}
        await conn.execute(query("create_round"), key)
        for table_no, bots in enumerate(pairing.tables, start=1):
            await conn.execute(
                query("create_table"), {**key, "table_no": table_no, "bot_ids": list(bots)}
            )
        for bot in pairing.byes:
            await conn.execute(query("create_bye"), {**key, "bot_id": bot})
        await conn.execute(query("set_current_round"), key)
    return await tables(db, tournament_id, round_no)


async def tables(db: Database, tournament_id: int, round_no: int) -> tuple[Table, ...]:
    """The tables of a round with their matches' status and ranks."""
    key = {"tournament_id": tournament_id, "round_no": round_no}
    async with db.transaction("read tables") as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query("round_tables"), key)
        rows = await cur.fetchall()
    return tuple(
        Table(
            round_no=round_no,
            table_no=r["table_no"],
            bot_ids=tuple(r["bot_ids"]),
            match_id=r["match_id"],
            match_status=r["match_status"],
            ranks=_ranks(r),
            attempt=r["attempt"],
        )
        for r in rows
    )


def _ranks(row: dict[str, Any]) -> tuple[int, ...]:
    """The seats' ranks; a table whose replay aborted too scores as a tie of every seat
    (docs/tournaments.md, "Aborted tables"), and an aborted first attempt has none yet."""
    if row["match_status"] is MatchStatus.ABORTED:
        return tuple(1 for _ in row["bot_ids"]) if row["attempt"] >= MAX_ATTEMPTS else ()
    return tuple(x for x in row["ranks"] if x is not None)


async def mark_dispatched(db: Database, tournament_id: int, round_no: int) -> None:
    """Note that the round's match tasks were just sent."""
    async with db.transaction("mark round dispatched") as conn:
        await conn.execute(
            query("mark_dispatched"), {"tournament_id": tournament_id, "round_no": round_no}
        )


async def close_round(
    db: Database, tournament_id: int, round_no: int, k: float = DEFAULT_K
) -> Step:
    """Rate the round, update the standings and pair the next round (or finish).

    Raises `RoundNotReady` while a table's match is unfinished. A second call after success
    changes nothing and returns `closed_now=False`.
    """
    began = time.perf_counter()
    key = {"tournament_id": tournament_id, "round_no": round_no}
    closed_now = False
    async with db.transaction(f"close round {round_no}") as conn:
        async with conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(query("tournament_for_update"), key)
            info_row = await cur.fetchone()
        if info_row is None:
            raise LookupError(f"no tournament {tournament_id}")
        async with conn.cursor(row_factory=class_row(RoundRow)) as rounds_cur:
            await rounds_cur.execute(query("round_for_update"), key)
            round_row = await rounds_cur.fetchone()
        if round_row is None:
            raise LookupError(f"tournament {tournament_id} has no round {round_no}")
        if not round_row.is_finished:
            current = await tables(db, tournament_id, round_no)
            waiting = [t.table_no for t in current if not t.is_over]
            if waiting:
                raise RoundNotReady(f"round {round_no} waits for tables {waiting}")
            game = info_row["game"]
            await _rate_round(conn, game, tournament_id, round_no, current, k)
            await conn.execute(query("finish_round"), key)
            closed_now = True
            metrics.RATING_UPDATE_SECONDS.observe(time.perf_counter() - began)
            metrics.ROUND_DURATION.labels(game).observe(
                max(0.0, (datetime.now(UTC) - round_row.started_at).total_seconds())
            )
    await update_standings(db, tournament_id)
    info = await tournament(db, tournament_id)
    assert info is not None
    if round_no >= info["rounds"]:
        async with db.transaction("finish tournament") as conn:
            await conn.execute(query("finish_tournament"), key)
        return Step(0, (), closed_now)
    return Step(round_no + 1, await pair(db, tournament_id, round_no + 1), closed_now)


# -- standings -----------------------------------------------------------------------------------
async def _results(
    db: Database, tournament_id: int, info: dict[str, Any], before: int
) -> list[RoundResult]:
    out = []
    for round_no in range(1, before):
        played = await tables(db, tournament_id, round_no)
        async with db.transaction("read byes") as conn:
            cursor = await conn.execute(
                query("round_byes"), {"tournament_id": tournament_id, "round_no": round_no}
            )
            byes = tuple(int(r[0]) for r in await cursor.fetchall())
        out.append(
            RoundResult(
                table_size=info["table_size"],
                tables=tuple(
                    TableResult(t.bot_ids, t.ranks)
                    for t in played
                    if len(t.ranks) == len(t.bot_ids)
                ),
                byes=byes,
            )
        )
    return out


async def _entry_ids(db: Database, tournament_id: int) -> list[int]:
    async with db.transaction("read entries") as conn:
        cursor = await conn.execute(query("entry_bots"), {"tournament_id": tournament_id})
        return [int(r[0]) for r in await cursor.fetchall()]


async def _ratings(db: Database, game: str, bots: list[int]) -> dict[int, float]:
    async with db.transaction("read ratings") as conn:
        cursor = await conn.execute(query("ratings_of"), {"game": game, "bot_ids": bots})
        return {int(r[0]): float(r[1]) for r in await cursor.fetchall()}


async def _active_ids(db: Database, tournament_id: int, round_no: int) -> list[int]:
    async with db.transaction("read active entries") as conn:
        cursor = await conn.execute(
            query("active_entry_bots"), {"tournament_id": tournament_id, "round_no": round_no}
        )
        return [int(r[0]) for r in await cursor.fetchall()]


async def _standings_and_history(
    db: Database, tournament_id: int, info: dict[str, Any], round_no: int
) -> tuple[tuple[Any, ...], History]:
    bots = await _active_ids(db, tournament_id, round_no)
    results = await _results(db, tournament_id, info, round_no)
    ratings = await _ratings(db, info["game"], bots)
    history = History()
    for result in results:
        history = history.after(t.bots for t in result.tables)
    return standings(bots, results, ratings), history


async def update_standings(db: Database, tournament_id: int) -> None:
    """Recompute the stored standings from every finished round."""
    info = await tournament(db, tournament_id)
    assert info is not None
    finished = [r for r in await _round_rows(db, tournament_id) if r.is_finished]
    upto = (max(r.round_no for r in finished) + 1) if finished else 1
    bots = await _entry_ids(db, tournament_id)
    results = await _results(db, tournament_id, info, upto)
    entrants = standings(bots, results, await _ratings(db, info["game"], bots))
    played = {b: 0 for b in bots}
    opponents = {b: 0 for b in bots}
    opponents_points = {b: 0 for b in bots}
    score_of = {e.bot: e.score for e in entrants}
    for result in results:
        for table in result.tables:
            for bot in table.bots:
                played[bot] += 1
                for other in table.bots:
                    if other != bot:
                        opponents[bot] += 1
                        opponents_points[bot] += to_units(score_of[other])
    async with db.transaction("update standings") as conn:
        await conn.execute(query("link_matches"), {"tournament_id": tournament_id})
        for e in entrants:
            await conn.execute(
                query("upsert_standing"),
                {
                    "tournament_id": tournament_id,
                    "bot_id": e.bot,
                    "score": float(e.score),
                    "tiebreak": float(e.tiebreak),
                    "byes": e.byes,
                    "short_tables": e.short_tables,
                    "rounds_played": played[e.bot],
                    "points": to_units(e.score),
                    "opponents_points": opponents_points[e.bot],
                    "opponents": opponents[e.bot],
                },
            )


async def _round_rows(db: Database, tournament_id: int) -> list[RoundRow]:
    async with (
        db.transaction("read rounds") as conn,
        conn.cursor(row_factory=class_row(RoundRow)) as cur,
    ):
        await cur.execute(query("rounds"), {"tournament_id": tournament_id})
        return await cur.fetchall()


async def standings_of(db: Database, tournament_id: int) -> list[StandingRow]:
    """The stored standings, best first."""
    async with db.transaction("read standings") as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query("standings"), {"tournament_id": tournament_id})
        rows = await cur.fetchall()
    return [
        StandingRow(
            i + 1,
            r["bot_id"],
            r["name"],
            r["score"],
            r["tiebreak"],
            r["rating"],
            r["byes"],
            r["rounds_played"],
            r["withdrawn_round"] is not None,
        )
        for i, r in enumerate(rows)
    ]


async def progress(db: Database, tournament_id: int) -> tuple[int, int]:
    """(finished tables, all tables) of the current round."""
    info = await tournament(db, tournament_id)
    if info is None or info["current_round"] == 0:
        return 0, 0
    current = await tables(db, tournament_id, info["current_round"])
    return sum(t.is_over for t in current), len(current)


# -- recovery ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Repair:
    """What the watchdog found for one running tournament."""

    tournament_id: int
    round_no: int
    action: str
    """"close" (every table finished, the round is still open), "advance" (the round closed but
    the next was never dispatched) or "dispatch" (tables waited too long since their dispatch)."""


async def stalled(db: Database, now: float | None = None) -> list[Repair]:
    """Running tournaments whose current round needs a nudge (after a lost task)."""
    now = time.time() if now is None else now
    out = []
    async with db.transaction("find running tournaments") as conn:
        cursor = await conn.execute(query("running_tournaments"))
        running = [int(r[0]) for r in await cursor.fetchall()]
    for tournament_id in running:
        rows = await _round_rows(db, tournament_id)
        if not rows:
            out.append(Repair(tournament_id, 1, "dispatch"))
            continue
        last = rows[-1]
        if last.is_finished:
            out.append(Repair(tournament_id, last.round_no, "advance"))
            continue
        current = await tables(db, tournament_id, last.round_no)
        if all(t.is_over for t in current):
            out.append(Repair(tournament_id, last.round_no, "close"))
            continue
        dispatched = last.dispatched_at or last.started_at
        # An aborted table whose task died before replaying it need not wait for the timeout.
        replays = any(t.needs_replay for t in current)
        if replays or now - dispatched.timestamp() > REDISPATCH_AFTER:
            out.append(Repair(tournament_id, last.round_no, "dispatch"))
    return out


def run(coroutine: Any) -> Any:
    """Run a coroutine from synchronous code (Celery tasks)."""
    return asyncio.run(coroutine)
