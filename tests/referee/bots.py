"""Bots that misbehave on purpose, in the spirit of lichess-bot's buggy_engine.py."""

from __future__ import annotations

import asyncio
import json

from arena.sdk import Bot
from arena.sdk.bots.base import RandomStrategy, Turn
from arena.v1 import bot_pb2
from engines import HashRng, Json


class RandomBot(Bot):
    """Plays uniformly random legal actions, and remembers every request it got."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.seed = seed
        self.requests: list[bot_pb2.DecisionRequest] = []
        self.turns: list[Turn] = []

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        self.requests.append(request)
        return await super()._answer(request)

    def decide(self, turn: Turn) -> Json:
        self.turns.append(turn)
        rng = HashRng(self.seed, f"{turn.match_id}:{turn.decision}:{turn.seat}")
        return RandomStrategy().decide(turn, rng)


class SlowBot(RandomBot):
    """Sleeps past the deadline on the decisions it is told to."""

    def __init__(self, slow_on: set[int], sleep: float) -> None:
        super().__init__()
        self.slow_on = slow_on
        self.sleep = sleep
        self.answered = 0

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        self.answered += 1
        if self.answered in self.slow_on:
            await asyncio.sleep(self.sleep)
        return await super()._answer(request)


class SilentBot(RandomBot):
    """Never answers the requests it is told to (by arrival order): they certainly time out,
    however loaded the machine, where a bot that sleeps past a deadline races the clock."""

    def __init__(self, silent_on: set[int]) -> None:
        super().__init__()
        self.silent_on = silent_on
        self.received = 0

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        self.received += 1
        if self.received in self.silent_on:
            self.requests.append(request)
            return None
        return await super()._answer(request)


class ScriptedAnswerBot(RandomBot):
    """Sends a hand-made Action for its first few requests, then plays randomly."""

    def __init__(self, bad: list[bot_pb2.Action]) -> None:
        super().__init__()
        self.bad = list(bad)

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        if self.bad:
            action = bot_pb2.Action()
            action.CopyFrom(self.bad.pop(0))
            action.match_id = action.match_id or request.match_id
            if not action.decision:
                action.decision = request.decision
            self.requests.append(request)
            return action
        return await super()._answer(request)


def json_action(value: object) -> bot_pb2.Action:
    """An Action carrying `value` as JSON text (or raw text if it is a str)."""
    text = value if isinstance(value, str) else json.dumps(value)
    return bot_pb2.Action(json=text)
