"""Live pages fed by real referees: `arena serve` processes publish each logged step on Redis,
a web app follows them by that news alone, and a spectator's stream survives its match's host
being killed (another referee takes the match over and publishes from then on)."""

from __future__ import annotations

import asyncio
import signal
from datetime import timedelta

import pytest

from arena.web import live
from tests.referee.test_scale_out import (
    arena,
    bots_spread,
    create,
    get_match,
    registered,
    until_decisions,
    until_ended,
)
from tests.web.sse import Event, events
from tests.web.test_live import web

pytestmark = pytest.mark.integration


def test_referees_news_feeds_the_live_page_across_a_takeover(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    heard: list[bytes | str] = []
    original = live.LiveHub.news

    def counted(self: live.LiveHub, data: bytes | str) -> None:
        heard.append(data)
        original(self, data)

    monkeypatch.setattr(live.LiveHub, "news", counted)

    async def scenario() -> None:
        async with arena(fresh_database_url, referees=2) as fleet:
            names, tokens = await registered(fleet, 4)
            # A poll of 5 minutes: only the referees' news can bring the steps in time.
            async with (
                web(fleet.database_url, fleet.redis_url, timedelta(minutes=5)) as port,
                bots_spread(fleet, names, tokens, failover=True),
            ):
                match_id = await create(fleet.addresses[0], "hart", names, seed=3)
                got: list[Event] = []

                async def follow() -> None:
                    path = f"/api/matches/{match_id}/live"
                    async for event in events("127.0.0.1", port, path, decode=False):
                        got.append(event)

                watching = asyncio.create_task(follow())
                await until_decisions(fleet, match_id, 10)
                host = (await get_match(fleet, match_id)).host
                fleet.signal(fleet.index_of(host), signal.SIGKILL)
                await until_ended(fleet, [match_id])
                await asyncio.wait_for(watching, 60)
                logged = len(fleet.decisions(match_id))
                after = (await get_match(fleet, match_id)).host
        assert after != host, "another referee took the match over"
        steps = [e.id for e in got if e.event == "step"]
        assert steps == list(range(logged + 1)), "every step once, in order, across the takeover"
        assert got[-1].event == "end"
        assert len(heard) >= logged // 2, f"{len(heard)} news messages for {logged} decisions"

    asyncio.run(scenario())
