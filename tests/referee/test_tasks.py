"""cancel_until_done: a referee's stop ends its background tasks even when one swallows a cancel."""

from __future__ import annotations

import asyncio

import pytest

from arena.referee.tasks import cancel_until_done


async def swallows_one_cancel(cancels: list[int]) -> None:
    """Like a loop whose library call lost a cancel: it goes back to waiting once."""
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        cancels.append(1)  # swallowed: the task stays "cancelling", as the hung one did
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        cancels.append(2)
        raise


def test_a_task_that_swallows_a_cancel_is_cancelled_again(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> list[int]:
        cancels: list[int] = []
        task = asyncio.create_task(swallows_one_cancel(cancels), name="stubborn")
        await asyncio.sleep(0)
        await asyncio.wait_for(cancel_until_done([task]), 5)
        assert task.cancelled()
        return cancels

    assert asyncio.run(scenario()) == [1, 2]
    assert "stubborn ignored a cancel" in caplog.text


def test_a_plain_gather_would_have_waited_forever() -> None:
    """The case above, stopped the old way: cancel once, then gather (the hang it fixes)."""

    async def scenario() -> bool:
        task = asyncio.create_task(swallows_one_cancel([]))
        await asyncio.sleep(0)
        task.cancel()
        try:
            await asyncio.wait_for(asyncio.gather(task, return_exceptions=True), 1.0)
        except TimeoutError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return False
        return True

    assert asyncio.run(scenario()) is False


def test_tasks_that_end_on_the_first_cancel_need_one_round() -> None:
    async def scenario() -> None:
        tasks = [asyncio.create_task(asyncio.sleep(60)) for _ in range(3)]
        await asyncio.sleep(0)
        await asyncio.wait_for(cancel_until_done(tasks), 1.0)
        assert all(task.cancelled() for task in tasks)

    asyncio.run(scenario())
