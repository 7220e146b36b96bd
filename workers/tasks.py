"""Celery tasks: thin, idempotent shells over `tournament.rounds`. They take ids, not objects."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import chord

from arena.ops.logs import log_context
from arena.tournament import ladder, schedules
from arena.tournament import rounds as tournaments
from arena.tournament.hosting import connected_bots, create_ladder_match, host_table, open_db
from arena.tournament.recovery import Nudge
from arena.tournament.rounds import RoundNotReady, Step, run
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
        tid, round_no = repair.tournament_id, repair.round_no
        if repair.action is Nudge.CLOSE:  # every table finished but no callback closed the round
            close_round.delay([], tid, round_no)
        elif repair.action is Nudge.ADVANCE:  # closed, but the next round was never dispatched
            dispatch(tid, run(_with_db(tournaments.close_round, tid, round_no)))
        else:  # tables have waited too long since their dispatch: a task was lost
            dispatch(tid, Step(round_no, run(_with_db(tournaments.pair, tid, round_no))))
        done.append(f"{repair.action} {tid}/{round_no}")
    return done


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
