"""An answer counts only for the request it names: a late one, relayed or direct, is dropped.

Found by the chaos soak (issue 26, match 289): after five takeovers a bot's answer to decision 13,
held by the relay, reached the new host 36 s later while decision 33 was open. The new host had
never asked decision 13 (its `closed` set starts empty), so the answer was taken for decision 33,
judged stale: a strike and the default move. Here a match is resumed past a few decisions, as a
host that took it over holds it, and a late answer arrives while a later decision is open.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from arena.referee.bot_routes import BotRoutes
from arena.referee.clock import Clock
from arena.referee.match import MatchRunner
from arena.referee.relay import Envelope, Kind
from arena.referee.sessions import Hub
from arena.v1 import bot_pb2
from tests.referee.takeover import BOT, StubReferee, taken_over
from tests.referee.test_cluster_parts import _FakeRelay

MATCH = 289
TAKEN_OVER_AT = 3
"""Decisions played before this host took the match over (the late answer names decision 1)."""


def _taken_over(hub: Hub) -> MatchRunner:
    return taken_over(hub, MATCH, TAKEN_OVER_AT, Clock(per_decision=timedelta(seconds=30)), epoch=6)


def _action(decision: int, index: int = 0) -> bot_pb2.Action:
    return bot_pb2.Action(match_id=MATCH, decision=decision, index=index)


def _is_quiet_stale(message: bot_pb2.ArenaMessage, decision: int) -> bool:
    problem = message.problem
    return (
        message.WhichOneof("kind") == "problem"
        and problem.kind == bot_pb2.PROBLEM_KIND_STALE_DECISION
        and problem.decision == decision
        and not problem.strike
    )


def test_a_late_answer_on_the_bot_stream_leaves_the_open_decision_to_its_own_answer() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=10))
        session = hub.connect(BOT, "five")
        runner = _taken_over(hub)
        decision = runner.driver.decision
        assert decision is not None and decision.number == TAKEN_OVER_AT and 0 in decision.seats
        asking = asyncio.create_task(runner._asker.ask(0, decision))
        await asyncio.sleep(0)
        assert session.outbox.get_nowait().decision.decision == TAKEN_OVER_AT

        reply = runner.deliver(BOT, _action(1))
        assert reply is not None and _is_quiet_stale(reply, 1), reply
        pending = hub.owed(MATCH, 0)
        assert pending is not None and not pending.answer.done(), "the open one still waits"
        reply = runner.deliver(BOT, _action(TAKEN_OVER_AT + 5))  # a number never asked
        assert reply is not None and _is_quiet_stale(reply, TAKEN_OVER_AT + 5), reply

        assert runner.deliver(BOT, _action(TAKEN_OVER_AT)) is None
        _, note = await asking
        assert note is None and runner.seats[0].strikes == 0
        assert session.outbox.empty(), "no strike Problem was sent"

    asyncio.run(scenario())


def test_a_late_answer_relayed_from_another_referee_earns_no_strike() -> None:
    async def scenario() -> None:
        hub = Hub(timedelta(seconds=10))
        sent: list[bot_pb2.ArenaMessage] = []
        hub.remote_send = lambda referee, bot_id, message: sent.append(message)
        hub.connected_elsewhere(BOT, "ref-b", bot_pb2.PAYLOAD_FORM_UNSPECIFIED)
        runner = _taken_over(hub)
        relay = _FakeRelay()
        routes = BotRoutes(StubReferee(hub, runner), relay, None)  # type: ignore[arg-type]
        decision = runner.driver.decision
        assert decision is not None
        asking = asyncio.create_task(runner._asker.ask(0, decision))
        await asyncio.sleep(0)
        assert [m.decision.decision for m in sent] == [TAKEN_OVER_AT]

        # The answer to decision 1 the relay held while the earlier hosts came and went.
        late = bot_pb2.BotMessage(action=_action(1)).SerializeToString()
        await routes.receive(Envelope(Kind.FROM_BOT, "ref-b", BOT, MATCH, 0, late))
        [(to, envelope)] = relay.sent
        assert to == "ref-b" and envelope.kind is Kind.TO_BOT
        reply = bot_pb2.ArenaMessage.FromString(envelope.payload)
        assert _is_quiet_stale(reply, 1), reply
        pending = hub.owed(MATCH, 0)
        assert pending is not None and not pending.answer.done()

        right = bot_pb2.BotMessage(action=_action(TAKEN_OVER_AT)).SerializeToString()
        await routes.receive(Envelope(Kind.FROM_BOT, "ref-b", BOT, MATCH, 0, right))
        _, note = await asking
        assert note is None and runner.seats[0].strikes == 0
        assert len(relay.sent) == 1 and len(sent) == 1, "no strike Problem was sent"
        assert runner.driver.pending() == {1}, "seat 0 answered decision 3 with its own answer"

    asyncio.run(scenario())
