"""A bot built from the last released protocol's stubs (tests/fixtures/stubs-v1/), with nothing of
today's arena package: it plays the first listed action (or the first of a described space) of
every decision. Run by tests/sdk/test_protocol_compat.py through `arena bot test`, which sets
ARENA_ADDRESS and ARENA_BOT_TOKEN; it exits when the arena closes its stream."""

from __future__ import annotations

import json
import os
import queue
import sys
from collections.abc import Iterator
from pathlib import Path

STUBS = Path(__file__).resolve().parents[1] / "fixtures" / "stubs-v1"
sys.path.insert(0, str(STUBS))  # ahead of the repository's own arena package

import grpc  # noqa: E402

from arena.v1 import bot_pb2, bot_pb2_grpc  # noqa: E402

assert Path(bot_pb2.__file__).is_relative_to(STUBS), bot_pb2.__file__


def answer(request: bot_pb2.DecisionRequest) -> bot_pb2.Action:
    """The first listed action by index, else the first of the described space in JSON."""
    action = bot_pb2.Action(match_id=request.match_id, decision=request.decision, seat=request.seat)
    if request.legal_json:
        action.index = 0
    elif request.space.actions_json:
        action.json = request.space.actions_json[0]
    else:
        r = request.space.ranges[0]
        action.json = json.dumps({**json.loads(r.template_json), r.field: r.min})
    return action


def main() -> None:
    """Play until the stream ends."""
    outbox: queue.Queue[bot_pb2.BotMessage | None] = queue.Queue()
    hello = bot_pb2.Hello(
        token=os.environ["ARENA_BOT_TOKEN"], client="v1-stubs", form=bot_pb2.PAYLOAD_FORM_JSON
    )
    outbox.put(bot_pb2.BotMessage(hello=hello))

    def outgoing() -> Iterator[bot_pb2.BotMessage]:
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        for message in bot_pb2_grpc.BotServiceStub(channel).Play(outgoing()):
            if message.WhichOneof("kind") == "decision":
                outbox.put(bot_pb2.BotMessage(action=answer(message.decision)))
    outbox.put(None)


if __name__ == "__main__":
    main()
