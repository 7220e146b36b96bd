"""Strikes: a Problem for a bad or missing answer, counted against a seat, forfeit at the limit."""

from __future__ import annotations

import logging

from arena.ops import metrics
from arena.referee import requests
from arena.referee.limits import clip
from arena.referee.seats import SeatState
from arena.referee.sessions import Hub
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
