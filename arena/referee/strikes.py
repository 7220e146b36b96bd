"""Strikes: a Problem for a bad or missing answer, counted against a seat, forfeit at the limit."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta

from arena.ops import metrics
from arena.referee import requests
from arena.referee.limits import clip
from arena.referee.seats import SeatState
from arena.referee.sessions import Hub
from arena.storage.botstats import STRIKE_KINDS, read_strike_note
from arena.storage.rows import DecisionRow
from arena.v1 import bot_pb2
from engines import ActionError, IllegalAction, InvalidAction, StaleDecision

log = logging.getLogger(__name__)

PROBLEM_OF = {
    InvalidAction: bot_pb2.PROBLEM_KIND_INVALID_ACTION,
    IllegalAction: bot_pb2.PROBLEM_KIND_ILLEGAL_ACTION,
    StaleDecision: bot_pb2.PROBLEM_KIND_STALE_DECISION,
}
MAX_PROBLEM_CHARS = 300


def kind_name(kind: int) -> str:
    """The short name of a Problem kind, e.g. "timeout"."""
    return bot_pb2.ProblemKind.Name(kind)[13:].lower()  # type: ignore[arg-type]


def problem_of(game: str, exc: ActionError) -> tuple[int, str]:
    """The Problem kind and message of a bad answer (counted in the metrics)."""
    kind = next(
        (k for t, k in PROBLEM_OF.items() if isinstance(exc, t)),
        bot_pb2.PROBLEM_KIND_ILLEGAL_ACTION,
    )
    metrics.BAD_ANSWERS.labels(game, kind_name(kind)).inc()
    # The error may quote the answer: the bot and the log get a short prefix of it.
    return kind, f"{clip(str(exc), MAX_PROBLEM_CHARS)}; the default action was played"


def strike(
    hub: Hub,
    match_id: int,
    game: str,
    seat: int,
    s: SeatState,
    number: int,
    kind: int,
    message: str,
    max_strikes: int,
) -> None:
    """Count a strike against `seat` at decision `number`, tell its bot, forfeit at the limit."""
    s.strikes += 1
    metrics.STRIKES.labels(game).inc()
    log.info("match %s seat %s (%s) strike %s: %s", match_id, seat, s.bot_name, s.strikes, message)
    hub.send(
        s.bot_id,
        requests.problem(
            match_id,
            number,
            kind,
            message,
            strike=True,
            strikes=s.strikes,
            max_strikes=max_strikes,
        ),
    )
    if max_strikes and s.strikes >= max_strikes and not s.forfeited:
        s.forfeited = True
        metrics.FORFEITS.labels(game).inc()
        hub.send(
            s.bot_id,
            requests.problem(
                match_id,
                number,
                bot_pb2.PROBLEM_KIND_FORFEIT,
                f"{s.strikes} strikes: seat {seat} forfeits and is ranked last; "
                "the others finish the match",
                strikes=s.strikes,
                max_strikes=max_strikes,
            ),
        )


REPEAT_WINDOW = timedelta(seconds=30)
"""How far back (before its last logged decision) a referee that takes a match over repeats the
Problems of its logged strikes: the relay holds a message it could not deliver for up to 30 s
(`arena.referee.relay.HOLD`) in the memory of the referee that sent it, which may have died with
it, and the bot, whose stream never dropped, would never hear that its answer was not used."""
REPEATED = " (repeated by the referee that took the match over)"


def repeat_recent(
    hub: Hub, match_id: int, seats: Sequence[SeatState], logged: Sequence[DecisionRow]
) -> int:
    """Send again the Problems of the strikes logged in the last `REPEAT_WINDOW` of a match
    this referee resumes; how many. Kept by the hub for a bot not located yet."""
    stamped = [row for row in logged if row.strikes and row.created_at is not None]
    if not stamped:
        return 0
    since = max(row.created_at for row in stamped if row.created_at) - REPEAT_WINDOW
    sent = 0
    for row in stamped:
        if row.created_at is None or row.created_at < since:
            continue
        for seat, note in sorted(row.strikes.items()):
            kind, message = read_strike_note(note)
            code = (
                bot_pb2.ProblemKind.Value(f"PROBLEM_KIND_{kind.upper()}")
                if kind in STRIKE_KINDS
                else bot_pb2.PROBLEM_KIND_UNSPECIFIED
            )
            why = clip(message, MAX_PROBLEM_CHARS) + REPEATED
            problem = requests.problem(match_id, row.number, code, why, strike=True)
            hub.send(seats[seat].bot_id, problem)
            sent += 1
    return sent
