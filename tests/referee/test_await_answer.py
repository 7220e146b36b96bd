"""`routing.await_answer`: woken by the answer, by its deadline, and by a deadline that moves.

The match awaits the answer future itself, so the answer resumes it directly."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

from arena.referee import routing
from arena.referee.sessions import Hub, Pending
from arena.v1 import bot_pb2


def _pending(hub: Hub, seconds: float) -> Pending:
    pending = Pending(1, 0, 7, 42, bot_pb2.DecisionRequest(), time.monotonic() + seconds)
    hub.owe(pending)
    return pending


def test_the_answer_wakes_the_waiter_at_once() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=5))
        hub.connect(42, "bot")
        pending = _pending(hub, 30)
        waiting = asyncio.create_task(routing.await_answer(hub, pending))
        await asyncio.sleep(0.01)
        assert not waiting.done()
        action = bot_pb2.Action(decision=7)
        began = time.monotonic()
        pending.answer.set_result(action)
        assert await waiting is action
        assert time.monotonic() - began < 1
        assert pending.rearm is None

    asyncio.run(scenario())


def test_no_answer_by_the_deadline_is_none() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=5))
        hub.connect(42, "bot")
        began = time.monotonic()
        assert await routing.await_answer(hub, _pending(hub, 0.05)) is None
        assert 0.04 < time.monotonic() - began < 1

    asyncio.run(scenario())


def test_a_disconnect_stretches_the_deadline_to_the_reconnect_grace() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=0.8))
        session = hub.connect(42, "bot")
        pending = _pending(hub, 0.1)
        began = time.monotonic()
        waiting = asyncio.create_task(routing.await_answer(hub, pending))
        await asyncio.sleep(0.02)
        hub.disconnect(session)  # the waiter re-reads its deadline: now the grace's end
        await asyncio.sleep(0.2)
        assert not waiting.done()  # past the request's own deadline, within the grace
        hub.connect(42, "bot")  # back: the request's own deadline, long passed, applies again
        assert await asyncio.wait_for(waiting, 1) is None
        assert time.monotonic() - began < 0.6

    asyncio.run(scenario())


def test_an_answer_after_a_reconnect_is_taken() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=5))
        session = hub.connect(42, "bot")
        pending = _pending(hub, 0.05)
        waiting = asyncio.create_task(routing.await_answer(hub, pending))
        await asyncio.sleep(0.01)
        hub.disconnect(session)
        await asyncio.sleep(0.1)
        hub.connect(42, "bot")
        pending.deadline = time.monotonic() + 5  # as `resent_requests` gives on a reconnect
        pending.deadline_moved()
        await asyncio.sleep(0.05)
        assert not waiting.done()
        action = bot_pb2.Action(decision=7)
        pending.answer.set_result(action)
        assert await waiting is action

    asyncio.run(scenario())


def test_the_answer_resumes_the_waiter_in_one_loop_hop() -> None:
    """One wake per decision: setting the answer resumes the waiting task on the very next turn
    of the event loop, with no intermediate callback in between."""

    async def scenario() -> None:
        hub = Hub(timedelta(seconds=5))
        hub.connect(42, "bot")
        pending = _pending(hub, 30)
        waiting = asyncio.create_task(routing.await_answer(hub, pending))
        await asyncio.sleep(0.01)
        pending.answer.set_result(bot_pb2.Action(decision=7))
        await asyncio.sleep(0)  # one turn of the loop: the waiter's wakeup runs in it
        assert waiting.done()

    asyncio.run(scenario())


def test_a_deadline_passing_leaves_no_timer_and_no_unretrieved_exception() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=5))
        hub.connect(42, "bot")
        pending = _pending(hub, 0.02)
        assert await routing.await_answer(hub, pending) is None
        assert pending.rearm is None
        assert isinstance(pending.answer.exception(), routing.DeadlinePassed)

    asyncio.run(scenario())
