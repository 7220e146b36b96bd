"""A hosted test bot that writes to stderr which decision it is answering, then plays the first
legal action (its output should appear at that decision in its owner's private replay)."""

import os
import sys

from arena.sdk import Bot
from arena.sdk.bots.base import Turn
from engines import Json


class Chatty(Bot):
    """The first legal action, said aloud."""

    def decide(self, turn: Turn) -> Json:
        """Say the decision's number on stderr, then play the first legal action."""
        print(f"<thinking> about decision {turn.decision}", file=sys.stderr, flush=True)
        return turn.legal[0] if turn.legal is not None else turn.choices()[0]


if __name__ == "__main__":
    Chatty().run(os.environ["ARENA_ADDRESS"], os.environ["ARENA_BOT_TOKEN"])
