"""A bot process that thinks for a while before each answer: keeps a match running for a test.

Run as `python -m tests.web.slowbot ADDRESS SECONDS TOKEN`.
"""

from __future__ import annotations

import asyncio
import sys

from arena.v1 import bot_pb2
from tests.referee.bots import RandomBot


class SlowBot(RandomBot):
    """Plays random legal actions, each after `pause` seconds."""

    def __init__(self, pause: float) -> None:
        super().__init__()
        self.pause = pause

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        await asyncio.sleep(self.pause)
        return await super()._answer(request)


if __name__ == "__main__":
    address, pause, token = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    SlowBot(pause).run(address, token)
