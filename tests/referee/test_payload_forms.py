"""Hello.form over the wire: each bot gets its view and legal actions in the form it asked for."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

import engines
from arena.protocol import wire
from arena.storage import Database
from arena.v1 import bot_pb2
from engines import HashRng
from engines.replay import driver_for
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, playing, register, running_referee, wait_finished

pytestmark = pytest.mark.integration


class JsonBot(RandomBot):
    """Asks for JSON only; the SDK's `Turn` reads nothing else."""

    form = bot_pb2.PAYLOAD_FORM_JSON


class TypedBot(RandomBot):
    """Asks for typed messages only and answers by index into the typed legal actions."""

    form = bot_pb2.PAYLOAD_FORM_TYPED

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        self.requests.append(request)
        rng = HashRng(self.seed, f"{request.match_id}:{request.decision}:{request.seat}")
        return bot_pb2.Action(
            match_id=request.match_id,
            decision=request.decision,
            seat=request.seat,
            index=rng.below(len(request.legal)),
        )


def test_each_bot_gets_the_form_it_asked_for_and_the_match_plays_out(
    fresh_database_url: str,
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["both", "json", "typed"]
            tokens = [await register(server.address, name) for name in names]
            bots = [RandomBot(seed=1), JsonBot(seed=2), TypedBot(seed=3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=31)
                match = await wait_finished(
                    server.address, match_id, timeout=timedelta(seconds=120)
                )
            assert all(s.strikes == 0 for s in match.seats)
            db = await Database.open(fresh_database_url)
            try:
                record = await db.record(match_id)
            finally:
                await db.close()
        rules = engines.get("hart")
        expected = {}
        driver = driver_for(rules, record)  # the views with their events, as a seat is sent them
        for wire_joint in record.moves:
            decision = driver.decision
            assert decision is not None
            for seat in decision.seats:
                legal = driver.space(seat).listing() or []
                expected[(decision.number, seat)] = (
                    driver.view(seat),
                    [rules.dump_action(a) for a in legal],
                )
            driver.play_wire(wire_joint)
        _, json_only, typed_only = bots
        for bot in bots:
            assert bot.requests
            for request in bot.requests:
                view, legal = expected[(request.decision, request.seat)]
                if bot is not typed_only:
                    assert json.loads(request.view_json) == view
                    assert [json.loads(text) for text in request.legal_json] == legal
                else:
                    assert request.view_json == "" and not request.legal_json
                if bot is not json_only:
                    assert wire.normalized(wire.view_json(request.view)) == wire.normalized(view)
                    assert [wire.action_json(a)[1] for a in request.legal] == legal
                else:
                    assert not request.HasField("view") and not request.legal
                assert request.default_json

    asyncio.run(scenario())
