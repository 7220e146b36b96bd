"""The harness's `within`: a hang fails with where each task waited, and the loop stays usable."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from tests.referee.harness import within


async def _stuck_forever() -> None:
    await asyncio.Event().wait()


def test_a_hang_fails_naming_where_it_waits() -> None:
    async def scenario() -> str:
        with pytest.raises(AssertionError) as raised:
            await within(_stuck_forever(), timedelta(milliseconds=100), "the stuck work")
        return str(raised.value)

    said = asyncio.run(scenario())
    assert said.startswith("the stuck work: not done after 0:00:00.100000"), said
    assert "_stuck_forever" in said, said


def test_finished_work_gives_its_result() -> None:
    async def quick() -> int:
        await asyncio.sleep(0)
        return 7

    assert asyncio.run(within(quick(), timedelta(seconds=5), "quick")) == 7
