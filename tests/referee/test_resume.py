"""A match whose referee stops mid-match is resumed from its stored log by another referee."""

from __future__ import annotations

import asyncio

import pytest

import engines
from arena.storage import Database
from arena.tournament import rounds as tournaments
from arena.v1 import arena_pb2, common_pb2
from tests.referee.bots import RandomBot
from tests.referee.harness import (
    ADMIN_METADATA,
    FAST_CLOCK,
    playing,
    register,
    running_referee,
    stub,
    wait_finished,
)

pytestmark = pytest.mark.integration


async def _create_table_match(address: str, names: list[str], tournament_id: int) -> int:
    request = arena_pb2.CreateMatchRequest(
        game="hart", bots=names, seed=31, tournament_id=tournament_id, round_no=1, table_no=1
    )
    channel, api = stub(address)
    async with channel:
        match = await api.CreateMatch(request, metadata=ADMIN_METADATA)
    return match.match_id


def test_a_stored_running_match_resumes_on_another_referee(fresh_database_url: str) -> None:
    names = ["r0", "r1", "r2"]

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as first:
            tokens = [await register(first.address, n) for n in names]
            tournament_id = await tournaments.create_tournament(
                first.referee.db,
                name="resume",
                game="hart",
                bot_names=names,
                table_size=3,
                rounds=1,
                clock=FAST_CLOCK,
            )
            bots = [RandomBot(seed=i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), first.address):
                match_id = await _create_table_match(first.address, names, tournament_id)
                while sum(len(b.requests) for b in bots) < 30:
                    await asyncio.sleep(0.01)
            # Leaving the block stops the bots, then the referee: the match stays "running".
        db = await Database.open(fresh_database_url)
        try:
            before = await db.record(match_id)
            row = await db.match(match_id)
            assert row is not None and row.status.value == "running"
        finally:
            await db.close()
        assert len(before.moves) >= 10

        async with running_referee(fresh_database_url) as second:
            bots = [RandomBot(seed=10 + i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), second.address):
                again = await _create_table_match(second.address, names, tournament_id)
                assert again == match_id, "the table's match is the stored one"
                match = await wait_finished(second.address, match_id)
            assert match.status == common_pb2.MATCH_STATUS_FINISHED
            assert min(r.decision for b in bots for r in b.requests) >= len(before.moves)
        db = await Database.open(fresh_database_url)
        try:
            after = await db.record(match_id)
        finally:
            await db.close()
        assert after.moves[: len(before.moves)] == before.moves, "the stored prefix is kept"
        rules = engines.get("hart")
        assert rules.outcome(engines.replay(rules, after)) is not None

    asyncio.run(scenario())
