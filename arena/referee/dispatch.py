"""What the referee does with a bot's stream: each message to the match it is for, and back."""

from __future__ import annotations

from collections.abc import Mapping

from arena.referee.match import MatchRunner
from arena.referee.problems import malformed, not_yours
from arena.referee.sessions import Session
from arena.v1 import bot_pb2

Runners = Mapping[int, MatchRunner]
"""The matches running here, by id."""


def matches_of(runners: Runners, bot_id: int) -> list[MatchRunner]:
    """The running matches `bot_id` plays in."""
    return [r for r in runners.values() if r.seats_of(bot_id)]


def resume_messages(runners: Runners, bot_id: int) -> list[bot_pb2.ArenaMessage]:
    """MatchStarts and pending requests for a bot that (re)connects."""
    out: list[bot_pb2.ArenaMessage] = []
    for runner in matches_of(runners, bot_id):
        out.extend(runner.resume_messages(bot_id))
    return out


def is_elsewhere(runners: Runners, message: bot_pb2.BotMessage) -> bool:
    """Whether the message is an action or resignation for a match not hosted here."""
    kind = message.WhichOneof("kind")
    if kind == "action":
        return message.action.match_id not in runners
    if kind == "resign":
        return message.resign.match_id not in runners
    return False


def handle_bot_message(
    runners: Runners, session: Session, message: bot_pb2.BotMessage
) -> bot_pb2.ArenaMessage | None:
    """Dispatch one message from a bot stream; return a reply if one is due."""
    kind = message.WhichOneof("kind")
    if kind == "heartbeat":
        return bot_pb2.ArenaMessage(heartbeat=bot_pb2.Heartbeat())
    if kind == "action":
        runner = runners.get(message.action.match_id)
        if runner is None or not runner.seats_of(session.bot_id):
            return not_yours(message.action.match_id, message.action.decision)
        return runner.deliver(session.bot_id, message.action)
    if kind == "resign":
        runner = runners.get(message.resign.match_id)
        if runner is None or not runner.seats_of(session.bot_id):
            return not_yours(message.resign.match_id, 0)
        runner.resign(session.bot_id, message.resign.reason)
        return None
    if kind == "hello":
        return malformed("Hello is only valid as the first message of a stream")
    return malformed("the message sets none of hello, action, resign and heartbeat")
