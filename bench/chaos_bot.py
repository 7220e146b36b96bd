"""A bot of the chaos soak: a reference strategy through the SDK, well behaved or not, that logs
every request, answer, Problem and MatchEnd to a JSON-lines file (arena.chaos.answers).

    ARENA_BOT_TOKEN=... python bench/chaos_bot.py ADDRESSES LOG --mode MODE --seed N

Modes: `good`; `slow` (a third of its answers come late, some past the deadline); `junk` (a
fifth of its answers are not actions); `flappy` (drops its stream every 5-15 s and reconnects);
`crash` (exits with status 3 after 10-40 s; the soak starts it again).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import sys
import threading
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the repository root first, so that `engines` is the package,
# not bench/engines.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.chaos.answers import AnswerLog
from arena.sdk.bots.base import Turn
from arena.sdk.client import StrategyBot
from arena.v1 import bot_pb2, common_pb2


class ChaosBot(StrategyBot):
    """A StrategyBot that logs its stream and misbehaves as its mode says."""

    def __init__(self, mode: str, seed: int, log: AnswerLog, per_decision: float) -> None:
        super().__init__("random" if seed % 2 else "heuristic", seed)
        self.mode = mode
        self.random = random.Random(seed)
        self.log = log
        self.per_decision = per_decision
        self.lock = threading.Lock()

    async def _session(self, rotation: Any, token: str) -> None:
        with self.lock:
            self.log.write(e="stream")
        await super()._session(rotation, token)

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        with self.lock:
            self.log.write(e="ask", m=request.match_id, d=request.decision, s=request.seat)
        if self.mode == "slow" and self.random.random() < 0.33:
            await asyncio.sleep(self.random.uniform(0.3, 1.6) * self.per_decision)
        return await super()._answer(request)

    def decide(self, turn: Turn) -> Any:
        choice = super().decide(turn)
        if self.mode == "junk" and self.random.random() < 0.2:
            choice = {"type": "no-such-action", "junk": self.random.random()}
        with self.lock:
            self.log.write(e="answer", m=turn.match_id, d=turn.decision, s=turn.seat, a=choice)
        return choice

    def on_problem(self, problem: bot_pb2.Problem) -> None:
        with self.lock:
            self.log.write(e="problem", m=problem.match_id, d=problem.decision, k=problem.kind)

    def on_match_end(self, end: bot_pb2.MatchEnd) -> None:
        super().on_match_end(end)
        aborted = end.termination == common_pb2.TERMINATION_ABORTED
        with self.lock:
            self.log.write(e="end", m=end.match_id, aborted=aborted)


async def play(bot: ChaosBot, addresses: str, token: str) -> None:
    """Run the bot; a flappy one drops its stream now and then, a crashing one exits."""
    if bot.mode == "crash":
        asyncio.get_running_loop().call_later(bot.random.uniform(10, 40), os._exit, 3)
    while True:
        if bot.mode == "flappy":
            asyncio.get_running_loop().call_later(bot.random.uniform(5, 15), bot.stop)
        await bot.run_async(addresses, token)
        if bot.mode != "flappy":
            return
        await asyncio.sleep(
            bot.random.uniform(0.1, 2.0)
        )  # gone for a moment, as a flaky network is


def main() -> None:
    """Parse the arguments and play until killed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("addresses")
    parser.add_argument("log")
    parser.add_argument("--mode", default="good")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-decision", type=float, default=1.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s")
    with open(args.log, "a") as handle:
        bot = ChaosBot(args.mode, args.seed, AnswerLog(handle), args.per_decision)
        asyncio.run(play(bot, args.addresses, os.environ["ARENA_BOT_TOKEN"]))


if __name__ == "__main__":
    main()
