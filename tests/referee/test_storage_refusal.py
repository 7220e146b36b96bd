"""A storage error that waiting cannot cure (a conflict) aborts the match instead of stalling it."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from prometheus_client import REGISTRY

from arena.v1 import common_pb2
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, ended, playing, register, running_referee, until

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
                match = await ended(server.address, match_id)
                await until(lambda: all(b.finished for b in bots))
            assert match.status == common_pb2.MATCH_STATUS_ABORTED
            assert "decision 2 is planted" in match.abort_reason
            for seat, bot in enumerate(bots):
                end = bot.finished[-1]
                assert end.match_id == match_id and end.seat == seat
                assert end.termination == common_pb2.TERMINATION_ABORTED

    asyncio.run(scenario())
    after = REGISTRY.get_sample_value("arena_matches_aborted_total", {"game": "hart"})
    assert after == before + 1
