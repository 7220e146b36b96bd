"""A live referee survives the answers that used to kill matches, and aborts what it cannot play."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest
from prometheus_client import REGISTRY

import engines
from arena.referee.clock import Clock
from arena.sdk import Bot
from arena.storage import Database
from arena.v1 import arena_pb2, bot_pb2, common_pb2
from tests.referee.bots import RandomBot, ScriptedAnswerBot, json_action
from tests.referee.harness import (
    create_match,
    ended,
    playing,
    register,
    running_referee,
    stub,
    until,
)

pytestmark = pytest.mark.integration

PATIENT_CLOCK = Clock(
    per_decision=timedelta(seconds=2),
    bank=timedelta(0),
    grace=timedelta(milliseconds=50),
    max_strikes=0,
)
"""Never forfeits, so the match plays on after every bad answer."""
GAMES = {"hart": (3, {}), "crossing": (2, {"round_cap": 6}), "loyang": (1, {})}


def _killers(game: str) -> list[bot_pb2.Action]:
    deep = json_action("[" * 1000 + "]" * 1000)
    empty_type = json_action({"type": []})
    typed = bot_pb2.Action()
    typed.typed.hart.declare.count = 1
    typed.typed.hart.declare.good = 999  # type: ignore[assignment]
    return [deep, empty_type, typed]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_three_reported_payloads_are_strikes_and_the_match_finishes(
    fresh_database_url: str, game: str
) -> None:
    seats, options = GAMES[game]

    async def scenario() -> None:
        async with running_referee(fresh_database_url, clock=PATIENT_CLOCK) as server:
            names = [f"{game}{i}" for i in range(seats)]
            tokens = [await register(server.address, n) for n in names]
            liar = ScriptedAnswerBot(_killers(game))
            bots: list[Bot] = [liar, *(RandomBot(i) for i in range(1, seats))]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, game, names, seed=3, **options)
                match = await ended(server.address, match_id)
                await until(lambda: bool(liar.finished))
            assert match.status == common_pb2.MATCH_STATUS_FINISHED, match
            strikes = [p for p in liar.problems if p.strike]
            assert len(strikes) >= 3, [p.message for p in liar.problems]
            messages = [p.message for p in strikes[:3]]
            assert "nests 1000 levels deep" in messages[0]
            assert "type" in messages[1]
            # The typed form is read before its game is checked: it once killed every game.
            assert "999 is not a HartGood" in messages[2], messages
            assert liar.finished[-1].termination != common_pb2.TERMINATION_ABORTED

    asyncio.run(scenario())


def test_a_referee_failure_aborts_the_match_tells_every_seat_and_counts_it(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = engines.get("hart")
    real_step = type(rules).step

    def exploding(self: Any, state: Any, decision: Any, actions: Any, rng: Any) -> Any:
        if decision.number == 2:
            raise RuntimeError("the engine exploded")
        return real_step(self, state, decision, actions, rng)

    monkeypatch.setattr(type(rules), "step", exploding)
    before = REGISTRY.get_sample_value("arena_matches_aborted_total", {"game": "hart"}) or 0.0

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["a0", "a1", "a2"]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=4)
                match = await ended(server.address, match_id, timeout=timedelta(seconds=30))
                await until(lambda: all(b.finished for b in bots))
            assert match.status == common_pb2.MATCH_STATUS_ABORTED
            assert match.termination == common_pb2.TERMINATION_ABORTED
            assert "RuntimeError: the engine exploded" in match.abort_reason
            for seat, bot in enumerate(bots):
                end = bot.finished[-1]
                assert end.match_id == match_id and end.seat == seat
                assert end.termination == common_pb2.TERMINATION_ABORTED
                assert "the engine exploded" in end.reason
            db = await Database.open(fresh_database_url)
            try:
                row = await db.match(match_id)
            finally:
                await db.close()
            assert row is not None and row.status.value == "aborted"
            assert row.termination is not None and "exploded" in row.termination

    asyncio.run(scenario())
    after = REGISTRY.get_sample_value("arena_matches_aborted_total", {"game": "hart"})
    assert after == before + 1


def test_get_match_reports_stored_decisions_and_rating_changes(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["r0", "r1"]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(i) for i in range(2)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "crossing", names, round_cap=5)
                await ended(server.address, match_id)
                # MatchEnd goes out once the ad-hoc match is rated: its changes are stored then.
                await until(lambda: all(b.finished for b in bots))
                match = await ended(server.address, match_id)
            db = await Database.open(fresh_database_url)
            try:
                record = await db.record(match_id)
            finally:
                await db.close()
            assert match.decisions == len(record.moves) > 0
            sent = {r.bot: r.rating_change for r in bots[0].finished[-1].results}
            reported = {s.bot: s.rating_change for s in match.seats}
            assert reported == sent
            if len({s.rank for s in match.seats}) > 1:
                assert all(change != 0 for change in reported.values())
            channel, api = stub(server.address)
            async with channel:
                listed = await api.ListMatches(arena_pb2.ListMatchesRequest())
            assert [m.decisions for m in listed.matches] == [match.decisions]
            assert {s.bot: s.rating_change for s in listed.matches[0].seats} == sent

    asyncio.run(scenario())


def test_a_failure_after_the_outcome_is_stored_sends_the_real_end_not_an_abort(
    fresh_database_url: str,
) -> None:
    before = REGISTRY.get_sample_value("arena_matches_aborted_total", {"game": "loyang"}) or 0.0

    def failing(runner: Any) -> None:
        raise RuntimeError("a callback failed")

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            server.referee.on_finish.append(failing)
            token = await register(server.address, "solo")
            bot = RandomBot(1)
            async with playing([(bot, token)], server.address):
                match_id = await create_match(server.address, "loyang", ["solo"], seed=2)
                match = await ended(server.address, match_id)
                await until(lambda: bool(bot.finished))
            assert match.status == common_pb2.MATCH_STATUS_FINISHED
            assert bot.finished[-1].termination == common_pb2.TERMINATION_COMPLETED
            assert not bot.finished[-1].reason

    asyncio.run(scenario())
    after = REGISTRY.get_sample_value("arena_matches_aborted_total", {"game": "loyang"}) or 0.0
    assert after == before
