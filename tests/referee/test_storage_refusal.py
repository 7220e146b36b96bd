"""A storage error that waiting cannot cure (a conflict) aborts the match instead of stalling it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import psycopg
import pytest
from prometheus_client import REGISTRY

from arena.v1 import arena_pb2, common_pb2
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, playing, register, running_referee, stub

pytestmark = pytest.mark.integration

REFUSE_DECISION_2 = """
CREATE FUNCTION refuse_decision_2() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.number = 2 THEN
        RAISE unique_violation USING MESSAGE = 'decision 2 is planted';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER refuse_decision_2 BEFORE INSERT ON decisions
    FOR EACH ROW EXECUTE FUNCTION refuse_decision_2();
"""


async def _until(check: Callable[[], bool], timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("condition not met")


async def _ended(address: str, match_id: int, timeout: float = 20.0) -> arena_pb2.Match:
    channel, api = stub(address)
    async with channel:
        for _ in range(int(timeout / 0.05)):
            match = await api.GetMatch(arena_pb2.GetMatchRequest(match_id=match_id))
            if match.status in (common_pb2.MATCH_STATUS_FINISHED, common_pb2.MATCH_STATUS_ABORTED):
                return match
            await asyncio.sleep(0.05)
    raise TimeoutError(f"match {match_id} did not end: {match}")


def test_a_conflict_while_logging_a_decision_aborts_the_match(fresh_database_url: str) -> None:
    before = REGISTRY.get_sample_value("arena_matches_aborted_total", {"game": "hart"}) or 0.0

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            with psycopg.connect(fresh_database_url, autocommit=True) as conn:
                conn.execute(REFUSE_DECISION_2)
            names = ["c0", "c1", "c2"]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=4)
                match = await _ended(server.address, match_id)
                await _until(lambda: all(b.finished for b in bots))
            assert match.status == common_pb2.MATCH_STATUS_ABORTED
            assert "decision 2 is planted" in match.abort_reason
            for seat, bot in enumerate(bots):
                end = bot.finished[-1]
                assert end.match_id == match_id and end.seat == seat
                assert end.termination == common_pb2.TERMINATION_ABORTED

    asyncio.run(scenario())
    after = REGISTRY.get_sample_value("arena_matches_aborted_total", {"game": "hart"})
    assert after == before + 1
