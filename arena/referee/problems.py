"""Problem replies the referee sends a bot whose message it cannot act on."""

from __future__ import annotations

from arena.referee import requests
from arena.v1 import bot_pb2


def malformed(message: str) -> bot_pb2.ArenaMessage:
    """A Problem for a message that makes no sense."""
    return requests.problem(0, 0, bot_pb2.PROBLEM_KIND_MALFORMED_MESSAGE, message)


def not_yours(match_id: int, decision: int) -> bot_pb2.ArenaMessage:
    """A Problem for an answer to a match in which the bot holds no seat."""
    return requests.problem(
        match_id,
        decision,
        bot_pb2.PROBLEM_KIND_NOT_YOUR_DECISION,
        f"you hold no seat in a running match {match_id}; the message was ignored",
    )
