"""Swiss tournaments over Postgres: start, pair rounds, close them (rate and rank), finish.

Every step is idempotent, so Celery can retry any of them after a worker dies:
- pairing a round inserts its tables under keys, so a second attempt finds the first's tables;
- a table's match is created under (tournament, round, table, attempt), so it is hosted once (and
  replayed at most once, after it aborted: see `tables.py`);
- closing a round locks the round's row, rates every match of the round from the ratings before
  the round in the same transaction that marks the matches rated and the round finished, so each
  match is rated exactly once and the order in which tables finish cannot change a rating.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import engines
from arena.ops import metrics
from arena.storage import Database, TournamentStatus
from arena.storage.sql import query
from arena.storage.tournaments import (
    Format,
    TournamentRow,
    due_tournament_ids,
    list_tournaments,
    round_for_update,
    tournament,
    tournament_in,
)
from arena.tournament.formats import pair_round_robin
from arena.tournament.pairing import pair_round
from arena.tournament.rating_store import leaderboard, rate_closed_round, rate_match
from arena.tournament.ratings import DEFAULT_K
from arena.tournament.recovery import Nudge, Repair, stalled
from arena.tournament.results import (
    StandingRow,
    standings_and_history,
    standings_of,
    update_standings,
)
from arena.tournament.setup import (
    NewTournament,
    create_tournament,
    insert_tournament,
    prepare_tournament,
)
from arena.tournament.tables import MAX_ATTEMPTS, Table, tables
from arena.tournament.tables import progress as _progress

# The commands' and workers' one entry point: these names live in their own modules.
__all__ = [
    "MAX_ATTEMPTS",
    "NewTournament",
    "Nudge",
    "Repair",
    "StandingRow",
    "Table",
    "TournamentRow",
    "create_tournament",
    "insert_tournament",
    "leaderboard",
    "list_tournaments",
    "prepare_tournament",
    "rate_match",
    "stalled",
    "standings_of",
    "tables",
    "tournament",
]

T = TypeVar("T")


class RoundNotReady(Exception):
    """A round cannot close yet: some of its tables are undecided."""


@dataclass(frozen=True, slots=True)
class Step:
    """What to do next after starting a tournament or closing a round."""

    round_no: int
    """The round to play now (0 when the tournament is over)."""
    tables: tuple[Table, ...]
    closed_now: bool = False
    """Whether this call closed the previous round (only that call dispatches the next one)."""
    started_now: bool = False
    """Whether this call started the tournament (only that call dispatches its first round)."""

    @property
    def finished(self) -> bool:
        """Whether the tournament is over."""
        return self.round_no == 0


async def due_tournaments(db: Database) -> list[int]:
    """Scheduled tournaments whose start time has come."""
    return await due_tournament_ids(db)


async def progress(db: Database, tournament_id: int) -> tuple[int, int]:
    """(decided tables, all tables) of the current round."""
    info = await tournament(db, tournament_id)
    return (0, 0) if info is None else await _progress(db, tournament_id, info.current_round)


async def _info(db: Database, tournament_id: int) -> TournamentRow:
    info = await tournament(db, tournament_id)
    if info is None:
        raise LookupError(f"no tournament {tournament_id}")
    return info


async def start(db: Database, tournament_id: int) -> Step:
    """Mark the tournament running and pair its first round; repeating it changes nothing (and
    returns `started_now=False`: beat may send a due tournament's start more than once)."""
    async with db.transaction("start tournament") as conn:
        cursor = await conn.execute(
            query("set_tournament_running"), {"tournament_id": tournament_id}
        )
        started = await cursor.fetchone() is not None
    info = await _info(db, tournament_id)
    if info.status is TournamentStatus.FINISHED:
        return Step(0, ())
    round_no = max(1, info.current_round)
    return Step(round_no, await pair(db, tournament_id, round_no), started_now=started)


async def pair(db: Database, tournament_id: int, round_no: int) -> tuple[Table, ...]:
    """The tables of `round_no`, pairing it first if nobody has."""
    existing = await tables(db, tournament_id, round_no)
    if existing:
        return existing
    began = time.perf_counter()
    info = await _info(db, tournament_id)
    if info.forfeit_limit is not None:
        async with db.transaction(f"withdraw forfeiters before round {round_no}") as conn:
            await conn.execute(
                query("withdraw_forfeiters"), {"tournament_id": tournament_id, "round_no": round_no}
            )
    entrants, history = await standings_and_history(db, info, round_no)
    rules = engines.get(info.game)
    pair_with = pair_round_robin if info.format is Format.ROUND_ROBIN else pair_round
    pairing = pair_with(entrants, history, info.table_size, rules.seat_counts, info.seed, round_no)
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

    Raises `RoundNotReady` while a table is undecided (its match, or its replay, unfinished).
    A second call after success changes nothing and returns `closed_now=False`.
    """
    began = time.perf_counter()
    key = {"tournament_id": tournament_id, "round_no": round_no}
    closed_now = False
    async with db.transaction(f"close round {round_no}") as conn:
        info = await tournament_in(conn, tournament_id, for_update=True)
        if info is None:
            raise LookupError(f"no tournament {tournament_id}")
        round_row = await round_for_update(conn, tournament_id, round_no)
        if round_row is None:
            raise LookupError(f"tournament {tournament_id} has no round {round_no}")
        if not round_row.is_finished:
            current = await tables(db, tournament_id, round_no)
            waiting = [t.table_no for t in current if not t.is_over]
            if waiting:
                raise RoundNotReady(f"round {round_no} waits for tables {waiting}")
            await rate_closed_round(
                conn, info.game, info.rating_system, (tournament_id, round_no), current, k
            )
            await conn.execute(query("finish_round"), key)
            closed_now = True
            metrics.RATING_UPDATE_SECONDS.observe(time.perf_counter() - began)
            metrics.ROUND_DURATION.labels(info.game).observe(
                max(0.0, (datetime.now(UTC) - round_row.started_at).total_seconds())
            )
    await update_standings(db, info)
    if round_no >= info.rounds:
        async with db.transaction("finish tournament") as conn:
            await conn.execute(query("finish_tournament"), key)
        return Step(0, (), closed_now)
    return Step(round_no + 1, await pair(db, tournament_id, round_no + 1), closed_now)


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code (Celery tasks)."""
    return asyncio.run(coroutine)
