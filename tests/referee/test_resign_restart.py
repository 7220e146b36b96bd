"""A resignation is durable: after a referee restart the resigned seat stays out of the match."""

from __future__ import annotations

import asyncio

import pytest

from arena.sdk import Bot
from arena.v1 import common_pb2
from tests.referee.bots import SlowBot
from tests.referee.harness import create_match, playing, register, running_referee, wait_finished

pytestmark = pytest.mark.integration


def test_a_resigned_seat_stays_resigned_after_a_restart(fresh_database_url: str) -> None:
    names = ["quitter", "stayer", "keeper"]

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as first:
            tokens = [await register(first.address, n) for n in names]
            # Every answer takes a little while, so the match is still running at the stop.
            bots: list[Bot] = [SlowBot(slow_on=set(range(1, 10_000)), sleep=0.05) for _ in names]
            async with playing(list(zip(bots, tokens, strict=True)), first.address):
                match_id = await create_match(first.address, "hart", names, seed=9)
                runner = first.referee.runners[match_id]
                while len(runner.moves) < 2:
                    await asyncio.sleep(0.02)
                runner.resign(runner.seats[0].bot_id, "giving up")
                resigned_at = len(runner.moves)
                while len(runner.moves) < resigned_at + 2:
                    await asyncio.sleep(0.02)
                assert runner.outcome is None, "the match ended before the restart"
            # Leaving the blocks stops the bots, then the referee (gracefully).

        async with running_referee(fresh_database_url) as second:
            resumed = second.referee.runners[match_id]
            assert resumed.seats[0].resigned and resumed.seats[0].forfeited
            assert not resumed.seats[1].forfeited and not resumed.seats[2].forfeited
            bots = [SlowBot(slow_on=set(), sleep=0) for _ in names]
            async with playing(list(zip(bots, tokens, strict=True)), second.address):
                match = await wait_finished(second.address, match_id)
            # The resigned bot was never asked again, and it is ranked last.
            assert not bots[0].answered
        assert match.status == common_pb2.MATCH_STATUS_FINISHED
        assert match.seats[0].forfeited
        assert match.seats[0].rank == max(s.rank for s in match.seats)

    asyncio.run(scenario())
