"""A bot whose `decide` takes longer than the SDK's silence limit keeps its stream: while it
decides it is not reading, and the referee's unread replies are no sign of a frozen referee.
(A chaos soak showed the old SDK dropping healthy streams of slow bots this way.) A real referee
over real gRPC; the SDK's heartbeat and silence limits are shortened so the test is quick."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest

from arena.referee.clock import Clock
from arena.sdk import stream
from arena.sdk.bots.base import Turn
from engines import Json
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, playing, register, running_referee

pytestmark = pytest.mark.integration

THINK = 4.0
"""How long the slow bot thinks over its first decision: past a heartbeat and the silence limit."""


class SlowThinker(RandomBot):
    """Thinks `THINK` seconds over its first decision; counts the streams it opens."""

    def __init__(self) -> None:
        super().__init__(seed=3)
        self.streams = 0

    async def _session(self, *args: Any) -> None:
        self.streams += 1
        await super()._session(*args)

    def decide(self, turn: Turn) -> Json:
        if not self.turns:
            time.sleep(THINK)
        return super().decide(turn)


def test_a_decide_longer_than_the_silence_limit_keeps_the_stream(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "SILENT_AFTER", timedelta(seconds=2))
    monkeypatch.setattr("arena.sdk.client.heartbeat_every", lambda *_: timedelta(milliseconds=500))
    patient = Clock(
        per_decision=timedelta(seconds=20),
        bank=timedelta(0),
        grace=timedelta(milliseconds=200),
        max_strikes=0,
    )
    slow, quick = SlowThinker(), RandomBot(seed=4)

    async def scenario() -> None:
        async with running_referee(fresh_database_url, clock=patient) as server:
            tokens = [await register(server.address, n) for n in ("slow", "quick")]
            async with playing([(slow, tokens[0]), (quick, tokens[1])], server.address):
                await create_match(server.address, "crossing", ["slow", "quick"], round_cap=2)
                for _ in range(600):
                    if len(slow.requests) >= 3:
                        break
                    await asyncio.sleep(0.05)

    asyncio.run(scenario())
    assert len(slow.requests) >= 3, "the slow bot played on past its long decision"
    assert slow.streams == 1, "the stream was dropped while the bot was deciding"
    first = (slow.requests[0].match_id, slow.requests[0].decision)
    assert [(r.match_id, r.decision) for r in slow.requests].count(first) == 1
    assert not slow.problems
