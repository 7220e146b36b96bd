"""A round whose matches were aborted closes: aborted tables score as ties and are not rated."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

import engines
from arena.tournament import rounds as tournaments
from arena.tournament.hosting import host_table
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN, FAST_CLOCK, playing, register, running_referee

pytestmark = pytest.mark.integration


def test_aborted_tables_score_as_ties_unrated_and_the_tournament_goes_on(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", fresh_database_url)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    rules = engines.get("hart")
    real_apply = type(rules)._apply
    broken = {"on": True}

    def exploding(self: Any, state: Any, decision: Any, actions: Any, rng: Any) -> Any:
        if broken["on"] and decision.number == 1:
            raise RuntimeError("the engine exploded")
        return real_apply(self, state, decision, actions, rng)

    monkeypatch.setattr(type(rules), "_apply", exploding)

    async def scenario() -> int:
        async with running_referee(fresh_database_url) as server:
            monkeypatch.setenv("ARENA_REFEREE_ADDRESS", server.address)
            names = [f"x{i}" for i in range(6)]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(seed=i) for i in range(len(names))]
            db = server.referee.db
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                tid = await tournaments.create_tournament(
                    db,
                    name="aborts",
                    game="hart",
                    bot_names=names,
                    table_size=3,
                    rounds=2,
                    clock=FAST_CLOCK,
                    seed=7,
                )
                step = await tournaments.start(db, tid)
                hosted = await asyncio.wait_for(
                    asyncio.gather(*(host_table(tid, 1, t.table_no) for t in step.tables)), 30
                )
                assert all(h["ranks"] == [1, 1, 1] for h in hosted), hosted
                assert await tournaments.progress(db, tid) == (2, 2)
                assert [r.action for r in await tournaments.stalled(db)] == ["close"]
                step = await tournaments.close_round(db, tid, 1)
                assert step.closed_now and step.round_no == 2
                standings = await tournaments.standings_of(db, tid)
                assert {s.score for s in standings} == {0.5}, "every seat of a tie scores alike"
                assert all(s.rounds_played == 1 for s in standings)
                broken["on"] = False
                await asyncio.wait_for(
                    asyncio.gather(*(host_table(tid, 2, t.table_no) for t in step.tables)), 60
                )
                final = await tournaments.close_round(db, tid, 2)
                assert final.finished
                return tid

    tid = asyncio.run(scenario())
    with psycopg.connect(fresh_database_url) as conn:
        rows = conn.execute(
            "SELECT round_no, status::text, rated, "
            "(SELECT count(*) FROM rating_changes r WHERE r.match_id = m.id) "
            "FROM matches m WHERE tournament_id = %s ORDER BY round_no, table_no",
            (tid,),
        ).fetchall()
    assert [r[:3] for r in rows] == [
        (1, "aborted", False),
        (1, "aborted", False),
        (2, "finished", True),
        (2, "finished", True),
    ]
    assert [r[3] for r in rows] == [0, 0, 3, 3]
