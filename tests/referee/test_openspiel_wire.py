"""OpenSpiel's leduc poker over gRPC: a real referee, real Postgres, reference random bots."""

from __future__ import annotations

import asyncio
import importlib
import json
from datetime import timedelta

import pytest

import engines
from arena.sdk import StrategyBot, openspiel_view
from arena.storage import Database
from arena.v1 import bot_pb2
from engines.replay import driver_for, replay
from tests.referee.bots import RandomBot
from tests.referee.harness import create_match, playing, register, running_referee, wait_finished

pytestmark = pytest.mark.integration
pytest.importorskip("pyspiel")
OPTIONS: dict[str, dict[str, object]] = {
    "openspiel/goofspiel": {"num_cards": 5},
    "openspiel/go": {"max_game_length": 12},  # 19x19: more actions than a listing holds
}


@pytest.mark.parametrize(
    "game", ["openspiel/leduc_poker", "openspiel/goofspiel", "openspiel/go", "openspiel/hearts"]
)
def test_an_openspiel_game_plays_over_the_wire_and_each_seat_saw_its_own_view(
    fresh_database_url: str, game: str
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["ada", "bob", "cyd", "dee"][: 4 if game == "openspiel/hearts" else 2]
            tokens = [await register(server.address, name) for name in names]
            bots = [RandomBot(seed=seat + 1) for seat in range(len(names))]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                options = OPTIONS.get(game, {})
                match_id = await create_match(server.address, game, names, seed=17, **options)
                match = await wait_finished(server.address, match_id, timeout=timedelta(seconds=60))
            assert all(s.strikes == 0 for s in match.seats)
            db = await Database.open(fresh_database_url)
            try:
                record = await db.record(match_id)
            finally:
                await db.close()
        rules = engines.get(game)
        final = replay(rules, record)
        assert rules.outcome(final) is not None
        assert sorted(s.rank for s in match.seats) == sorted(rules.outcome(final).ranks)
        driver = driver_for(rules, record)
        expected = {}
        for wire_joint in record.moves:
            decision = driver.decision
            assert decision is not None
            for seat in decision.seats:
                expected[(decision.number, seat)] = (
                    driver.view(seat),
                    list(driver.space(seat).listing() or []),
                )
            driver.play_wire(wire_joint)
        seen = 0
        for bot in bots:
            for request in bot.requests:
                view, legal = expected[(request.decision, request.seat)]
                assert json.loads(request.view_json) == view
                assert view["seat"] == request.seat and "information_state" in view
                assert [json.loads(text) for text in request.legal_json] == legal
                seen += 1
        assert seen == sum(len(m) for m in record.moves)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("game", "strategy"), [("openspiel/connect_four", "mcts"), ("openspiel/leduc_poker", "cfr")]
)
def test_the_reference_bots_play_openspiel_games_over_the_wire(
    fresh_database_url: str, game: str, strategy: str
) -> None:
    """The bots `arena bot run --strategy mcts|cfr` runs: every answer in time and legal."""
    if strategy == "cfr":  # solved once per process (about 1.5 s): not on this test's 2 s clock
        importlib.import_module("arena.sdk.bots.openspiel").solved_policy("leduc_poker(players=2)")

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["ada", "bob"]
            tokens = [await register(server.address, name) for name in names]
            bots = [StrategyBot(strategy, seed=3), StrategyBot("random", seed=4)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, game, names, seed=5)
                match = await wait_finished(server.address, match_id, timeout=timedelta(seconds=60))
        assert all(s.strikes == 0 for s in match.seats)
        assert not bots[0].problems and not bots[1].problems
        assert sorted(s.rank for s in match.seats) in ([1, 2], [1, 1])

    asyncio.run(scenario())


class TypedOnlyBot(RandomBot):
    """A random bot that asks for the typed form alone: its turns come from `OpenSpielView`."""

    form = bot_pb2.PAYLOAD_FORM_TYPED


@pytest.mark.parametrize(
    "game", ["openspiel/leduc_poker", "openspiel/goofspiel", "openspiel/tic_tac_toe"]
)
def test_the_typed_openspiel_view_says_what_the_json_view_says(
    fresh_database_url: str, game: str
) -> None:
    """Seat 0 gets both forms: the typed view read back equals the JSON view, its labels are
    `legal_json` and its ids OpenSpiel's; seat 1 asks for the typed form only and plays on it."""

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["ada", "bob"]
            tokens = [await register(server.address, name) for name in names]
            bots = [RandomBot(seed=1), TypedOnlyBot(seed=2)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                options = OPTIONS.get(game, {})
                match_id = await create_match(server.address, game, names, seed=23, **options)
                match = await wait_finished(server.address, match_id, timeout=timedelta(seconds=60))
            assert all(s.strikes == 0 for s in match.seats)
            assert not bots[0].problems and not bots[1].problems
            db = await Database.open(fresh_database_url)
            try:
                record = await db.record(match_id)
            finally:
                await db.close()
        driver = driver_for(engines.get(game), record)
        expected = {}
        for wire_joint in record.moves:
            decision = driver.decision
            assert decision is not None
            for seat in decision.seats:
                expected[(decision.number, seat)] = (driver.view(seat), driver.space(seat))
            driver.play_wire(wire_joint)
        both, typed_only = bots
        assert both.requests and typed_only.requests
        for request in both.requests:
            view, space = expected[(request.decision, request.seat)]
            typed = request.view.openspiel
            assert openspiel_view.view_json(typed) == json.loads(request.view_json) == view
            assert list(typed.legal_labels) == [json.loads(t) for t in request.legal_json]
            assert tuple(typed.legal_ids) == space.ids and len(space.ids) == len(space.actions)
        for request, turn in zip(typed_only.requests, typed_only.turns, strict=True):
            view, space = expected[(request.decision, request.seat)]
            assert not request.view_json and not request.legal_json
            assert turn.view == view and turn.legal == space.actions
            assert openspiel_view.legal(request.view.openspiel) == dict(
                zip(space.actions, space.ids, strict=True)
            )

    asyncio.run(scenario())
