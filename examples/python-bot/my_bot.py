"""A complete Arena bot in Python: plays the first legal action of every decision.

Run it against a local arena with `arena bot test examples/python-bot/my_bot.py`, or against
`arena up` with `ARENA_BOT_TOKEN=<token> python examples/python-bot/my_bot.py`. It reads the
arena's address from ARENA_ADDRESS (default localhost:50051) and its token from ARENA_BOT_TOKEN.
ARENA_ADDRESS may list several referees of one arena, "ref-a:50051,ref-b:50051": the SDK moves
to the next when the one it plays through drops, and keeps its seats.
"""

from __future__ import annotations

import os

from arena.sdk import Bot
from arena.sdk.bots.base import Turn
from engines import Json


class FirstChoice(Bot):
    """Always the first legal action (or the first of a described space)."""

    def decide(self, turn: Turn) -> Json:
        """The first legal action."""
        return turn.legal[0] if turn.legal is not None else turn.choices()[0]


if __name__ == "__main__":
    FirstChoice().run(
        os.environ.get("ARENA_ADDRESS", "localhost:50051"), os.environ["ARENA_BOT_TOKEN"]
    )
