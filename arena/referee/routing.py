"""Answers from the bot stream: routed to the seat that owes them, awaited until the deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence, Set
from datetime import timedelta

from arena.referee import requests
from arena.referee.clock import Clock
from arena.referee.sessions import Hub, Pending
from arena.v1 import bot_pb2


def route(
    hub: Hub,
    match_id: int,
    held: Sequence[int],
    closed: Mapping[int, Set[int]],
    action: bot_pb2.Action,
) -> bot_pb2.ArenaMessage | None:
    """Hand `action` to the open request of a seat in `held` it answers; return a Problem if it
    cannot be routed. `closed` maps a seat to the decisions it was asked that are closed."""
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
        return requests.problem(
            match_id,
            action.decision,
            bot_pb2.PROBLEM_KIND_STALE_DECISION,
            f"decision {action.decision} of match {match_id} is already closed; "
            "the answer was ignored",
        )
    owed = [p for p in (hub.owed(match_id, s) for s in seats) if p is not None]
    if not owed:
        return requests.problem(
            match_id,
            action.decision,
            bot_pb2.PROBLEM_KIND_STALE_DECISION,
            f"no decision of yours is open in match {match_id} "
            f"(answer named decision {action.decision}); it was ignored",
        )
    target = next((p for p in owed if p.decision == action.decision), owed[0])
    if target.answer.done():
        return requests.problem(
            match_id,
            action.decision,
            bot_pb2.PROBLEM_KIND_STALE_DECISION,
            f"decision {target.decision} already has your answer; this one was ignored",
        )
    target.answer.set_result(action)
    return None


async def await_answer(hub: Hub, pending: Pending) -> bot_pb2.Action | None:
    """The answer to `pending`, or None once its deadline (stretched while its bot is away
    and may reconnect) has passed."""
    # One future woken by the answer, the timer or a moved deadline: no task and no
    # `asyncio.wait` per request, which cost more CPU than the rest of the wait.
    loop = asyncio.get_running_loop()
    answer = pending.answer
    while not answer.done():
        deadline = pending.deadline
        away_until = hub.reconnect_deadline(pending.bot_id)
        if away_until is not None:
            deadline = max(deadline, away_until)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        waiter = pending.waiter = loop.create_future()

        def wake(_: object = None, waiter: asyncio.Future[None] = waiter) -> None:
            if not waiter.done():
                waiter.set_result(None)

        timer = loop.call_later(remaining, wake)
        answer.add_done_callback(wake)
        try:
            await waiter
        finally:
            timer.cancel()
            answer.remove_done_callback(wake)
            pending.waiter = None
    return answer.result()


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
