"""Answers from the bot stream: routed to the seat that owes them, awaited until the deadline."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Mapping, Sequence, Set
from datetime import timedelta

from arena.ops import metrics
from arena.referee import requests
from arena.referee.clock import Clock
from arena.referee.sessions import Hub, Pending
from arena.v1 import bot_pb2

log = logging.getLogger(__name__)


def route(
    hub: Hub,
    match_id: int,
    held: Sequence[int],
    closed: Mapping[int, Set[int]],
    action: bot_pb2.Action,
) -> bot_pb2.ArenaMessage | None:
    """Hand `action` to the open request of a seat in `held` whose decision it names; return a
    Problem if it cannot be routed. `closed` maps a seat to the decisions it was asked that are
    closed (on this host: a host that took the match over knows none of the earlier ones).

    An answer only ever counts for the request it names: one naming any other decision (a late
    answer, resent by the relay or a reconnecting bot, perhaps to a decision closed on an earlier
    host) is dropped with a STALE_DECISION Problem, logged and counted, never a strike: the open
    decision still waits for its own answer."""
    if action.HasField("seat") and action.seat not in held:
        return requests.problem(
            match_id,
            action.decision,
            bot_pb2.PROBLEM_KIND_NOT_YOUR_DECISION,
            f"seat {action.seat} of match {match_id} is not yours (you hold {list(held)})",
        )
    seats = [action.seat] if action.HasField("seat") else held
    if any(action.decision in closed.get(s, ()) for s in seats):
        # A late answer to a decision already defaulted: the timeout was the strike.
        return _stale(
            match_id,
            action.decision,
            "closed",
            f"decision {action.decision} of match {match_id} is already closed; "
            "the answer was ignored",
        )
    owed = [p for p in (hub.owed(match_id, s) for s in seats) if p is not None]
    if not owed:
        return _stale(
            match_id,
            action.decision,
            "none_open",
            f"no decision of yours is open in match {match_id} "
            f"(answer named decision {action.decision}); it was ignored",
        )
    target = next((p for p in owed if p.decision == action.decision), None)
    if target is None:
        open_now = sorted({p.decision for p in owed})
        return _stale(
            match_id,
            action.decision,
            "not_open",
            f"decision {action.decision} of match {match_id} is not open (yours open: "
            f"{', '.join(map(str, open_now))}); the answer was ignored",
        )
    if target.answer.done():
        return _stale(
            match_id,
            action.decision,
            "answered",
            f"decision {target.decision} already has your answer; this one was ignored",
        )
    target.answer.set_result(action)
    return None


def _stale(match_id: int, decision: int, why: str, message: str) -> bot_pb2.ArenaMessage:
    """Log and count an answer dropped as stale; the Problem (no strike) that tells the bot."""
    metrics.STALE_ANSWERS.labels(why).inc()
    # Debug, not info: a bot can send stale answers as fast as it likes; the counter counts.
    log.debug(
        "match %s: an answer to decision %s was dropped as stale (%s)", match_id, decision, why
    )
    return requests.problem(match_id, decision, bot_pb2.PROBLEM_KIND_STALE_DECISION, message)


class DeadlinePassed(Exception):
    """Set on a request's answer future when its deadline passed with no answer."""


async def await_answer(hub: Hub, pending: Pending) -> bot_pb2.Action | None:
    """The answer to `pending`, or None once its deadline (stretched while its bot is away
    and may reconnect) has passed."""
    # The match awaits the answer future itself: the answer read from the stream resumes it in
    # one event-loop hop. The timer resolves the same future when the deadline passes; a moved
    # deadline re-arms the timer. No task, no second future, no `asyncio.wait` per request.
    loop = asyncio.get_running_loop()
    answer = pending.answer
    timer: asyncio.TimerHandle | None = None

    def rearm() -> None:
        nonlocal timer
        if timer is not None:
            timer.cancel()
            timer = None
        if answer.done():
            return
        deadline = pending.deadline
        away_until = hub.reconnect_deadline(pending.bot_id)
        if away_until is not None:
            deadline = max(deadline, away_until)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            answer.set_exception(DeadlinePassed())
        else:
            timer = loop.call_later(remaining, rearm)

    rearm()
    # Deferred to the next turn of the loop, as a woken waiter would be: a reconnect moves the
    # deadline (`resent_requests`) right after the hub calls `deadline_moved`.
    pending.rearm = functools.partial(loop.call_soon, rearm)
    try:
        return await answer
    except DeadlinePassed:
        return None
    finally:
        pending.rearm = None
        if timer is not None:
            timer.cancel()


def resent_requests(
    hub: Hub, match_id: int, held: Sequence[int], clock: Clock
) -> list[bot_pb2.ArenaMessage]:
    """The requests a reconnecting bot still owes for seats `held`, each with a fair window:
    at least one full per-decision limit from now."""
    out = []
    for seat in held:
        pending = hub.owed(match_id, seat)
        if pending is not None:
            grace = clock.grace.total_seconds()
            fresh = time.monotonic() + clock.per_decision.total_seconds() + grace
            pending.deadline = max(pending.deadline, fresh)
            left = timedelta(seconds=pending.deadline - grace - time.monotonic())
            requests.refresh_deadline(pending.request, left)
            out.append(bot_pb2.ArenaMessage(decision=pending.request))
    return out
