"""Celery tasks: thin, idempotent shells over `tournament.rounds`. They take ids, not objects."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import chord

from arena.ops.logs import log_context
from arena.storage import StorageError
from arena.tournament import ladder, schedules
from arena.tournament import rounds as tournaments
from arena.tournament.hosting import (
    connected_bots,
    create_ladder_match,
    create_seeded_match,
    host_table,
    open_db,
)
from arena.tournament.recovery import Nudge, Repair
from arena.tournament.rounds import RoundNotReady, Step, run
from arena.versiontest import schedule as versiontests
from workers.app import app

log = logging.getLogger(__name__)

RETRY_SECONDS = float(os.environ.get("ARENA_RETRY_SECONDS", "1.0"))


def dispatch(tournament_id: int, step: Step) -> None:
    """Send one task per unfinished table of the step's round, joined by a chord callback."""
    if step.finished:
        return
    jobs = [play_table.s(tournament_id, step.round_no, t.table_no) for t in step.tables]
    callback = close_round.s(tournament_id, step.round_no)
    if jobs:
        chord(jobs)(callback)
    else:  # a round of byes only
        callback.delay([])
    run(_with_db(tournaments.mark_dispatched, tournament_id, step.round_no))
    log.info(
        "tournament %s round %s: %s tables dispatched",
        tournament_id,
        step.round_no,
        len(jobs),
        extra={"tournament_id": tournament_id, "round_no": step.round_no},
    )


async def _with_db(func: Any, *args: Any) -> Any:
    async with await open_db() as db:
        return await func(db, *args)


@app.task(name="arena.start_tournament", bind=True, max_retries=None)
def start_tournament(self: Any, tournament_id: int) -> int:
    """Mark a tournament running, pair round 1 and dispatch it."""
    with log_context(tournament_id=tournament_id, task_id=self.request.id):
        step: Step = run(_with_db(tournaments.start, tournament_id))
        # Beat sends a due tournament's start every tick until one has run: only the start that
        # set it running dispatches round 1 (the watchdog dispatches it if that one died first).
        # Each extra dispatch added a task per table holding a worker slot for the whole match.
        if step.started_now:
            dispatch(tournament_id, step)
        return step.round_no


@app.task(name="arena.play_table", bind=True, max_retries=None)
def play_table(self: Any, tournament_id: int, round_no: int, table_no: int) -> dict[str, Any]:
    """Have a referee host one table's match and wait for its result."""
    with log_context(tournament_id=tournament_id, round_no=round_no, task_id=self.request.id):
        try:
            result: dict[str, Any] = run(host_table(tournament_id, round_no, table_no))
            return result
        except ConnectionError as exc:
            log.warning("table %s: %s; retrying", table_no, exc)
            raise self.retry(countdown=RETRY_SECONDS * 2) from exc


@app.task(name="arena.close_round", bind=True, max_retries=None)
def close_round(self: Any, results: list[Any], tournament_id: int, round_no: int) -> int:
    """Chord callback: rate the round, update standings, then dispatch the next round."""
    with log_context(tournament_id=tournament_id, round_no=round_no, task_id=self.request.id):
        try:
            step: Step = run(_with_db(tournaments.close_round, tournament_id, round_no))
        except RoundNotReady as exc:
            log.info("%s; retrying", exc)
            raise self.retry(countdown=RETRY_SECONDS) from exc
        except StorageError as exc:  # Postgres is down: the round closes when it is back
            log.warning("round %s: %s; retrying", round_no, exc)
            raise self.retry(countdown=RETRY_SECONDS * 2) from exc
        if step.closed_now:
            dispatch(tournament_id, step)
        if step.finished:
            log.info("tournament %s finished", tournament_id)
        return step.round_no


@app.task(name="arena.start_due")
def start_due() -> list[int]:
    """Beat: start every scheduled tournament whose time has come."""
    due: list[int] = run(_with_db(tournaments.due_tournaments))
    for tournament_id in due:
        start_tournament.delay(tournament_id)
    return due


@app.task(name="arena.watchdog")
def watchdog() -> list[str]:
    """Beat: nudge rounds left behind by a lost task (every step is idempotent)."""
    repairs = run(_with_db(tournaments.stalled))
    done = []
    for repair in repairs:
        try:
            repair_round(repair)
        except Exception as exc:  # one tournament's failure must not leave the others unrepaired
            log.warning(
                "watchdog: %s %s/%s failed: %s",
                repair.action,
                repair.tournament_id,
                repair.round_no,
                exc,
                extra={"tournament_id": repair.tournament_id, "round_no": repair.round_no},
            )
            continue
        done.append(f"{repair.action} {repair.tournament_id}/{repair.round_no}")
    return done


def repair_round(repair: Repair) -> None:
    """Apply one of the watchdog's repairs here and now.

    A round whose tables are all decided is closed in this task, not by queueing a `close_round`:
    the nudge exists because a close was lost, and a queued one could wait behind whatever the
    workers have not caught up with yet.
    """
    tid, round_no = repair.tournament_id, repair.round_no
    if repair.action is Nudge.DISPATCH:  # a table still has no match: a table task was lost
        dispatch(tid, Step(round_no, run(_with_db(tournaments.pair, tid, round_no))))
        return
    step: Step = run(_with_db(tournaments.close_round, tid, round_no))
    # CLOSE: only the call that closed the round dispatches the next one. ADVANCE: the round was
    # closed but the next one never dispatched.
    if step.closed_now or repair.action is Nudge.ADVANCE:
        dispatch(tid, step)


@app.task(name="arena.run_schedules")
def run_schedules() -> list[int]:
    """Beat: create the edition of every due schedule (`start_due` then starts it)."""
    created: list[int] = run(_with_db(schedules.run_due, connected_bots))
    for tournament_id in created:
        log.info("scheduled edition created: tournament %s", tournament_id)
    return created


@app.task(name="arena.ladder_tick")
def ladder_tick() -> list[int]:
    """Beat: make the matches every active ladder can make among the connected bots."""
    made: list[int] = run(_with_db(ladder.tick, connected_bots, create_ladder_match))
    return made


@app.task(name="arena.version_test_tick")
def version_test_tick() -> list[int]:
    """Beat: count finished version-test sets and dispatch the next ones."""
    made: list[int] = run(_with_db(versiontests.tick, connected_bots, create_seeded_match))
    return made
