"""docs/protocol.md's examples parse against the current protos and engines, so the page cannot
silently fall behind the wire contract: the transcript, the described space, every inline typed or
JSON action, every game's JSON/typed pair, and the grpcurl request bodies.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from google.protobuf import json_format, text_format
from google.protobuf.message import Message

import engines
from arena.protocol import openspiel_view, wire
from arena.sdk import openspiel_view as sdk_view
from arena.v1 import account_pb2, arena_pb2, bot_pb2, common_pb2

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
TEXT = DOC.read_text()
HEADER = re.compile(r"^# [\d.]+s (bot -> arena|arena -> bot)", re.MULTILINE)


def _blocks() -> list[str]:
    """The fenced code blocks, in order."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in TEXT.splitlines():
        if line.startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append("\n".join(current) + "\n")
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def _transcript() -> list[tuple[str, str]]:
    """(direction, text) of every message of the transcript."""
    block = next(b for b in _blocks() if HEADER.search(b))
    heads = list(HEADER.finditer(block))
    out = []
    for head, nxt in zip(heads, [*heads[1:], None], strict=True):
        body = block[head.end() : nxt.start() if nxt else len(block)]
        body = "\n".join(line for line in body.splitlines()[1:] if not line.startswith("#"))
        out.append((head.group(1), body))
    return out


def test_the_transcript_parses_message_by_message() -> None:
    messages = _transcript()
    assert len(messages) >= 15
    kinds = set()
    for direction, body in messages:
        message: Message = (
            bot_pb2.BotMessage() if direction == "bot -> arena" else bot_pb2.ArenaMessage()
        )
        text_format.Parse(body, message)
        kind = message.WhichOneof("kind")  # type: ignore[attr-defined]
        assert kind is not None, body
        kinds.add(kind)
        if kind == "decision":
            request = message.decision  # type: ignore[attr-defined]
            for text in request.legal_json:
                engines.get("hart").parse_action(request.seat, json.loads(text))
        if kind == "action" and message.action.HasField("json"):  # type: ignore[attr-defined]
            json.loads(message.action.json)  # type: ignore[attr-defined]
    assert kinds >= {"hello", "welcome", "match_start", "decision", "action", "problem"}
    assert kinds >= {"match_end", "heartbeat"}


def test_the_described_space_example_parses() -> None:
    block = next(b for b in _blocks() if b.startswith("space {"))
    request = text_format.Parse(block, bot_pb2.DecisionRequest())
    assert request.space.ranges[0].field == "amount"
    template = json.loads(request.space.ranges[0].template_json)
    typed = wire.action_message("hart", template)
    assert typed == request.space.ranges[0].template


INLINE_ACTIONS = re.findall(r"`((?:typed|json|index): [^`]+)`", TEXT)


@pytest.mark.parametrize("example", INLINE_ACTIONS)
def test_every_inline_action_example_parses(example: str) -> None:
    action = text_format.Parse(example, bot_pb2.Action())
    if action.HasField("typed"):
        game, value = wire.action_json(action.typed)
        engines.get(game).parse_action(0, value)
    if action.HasField("json"):
        assert isinstance(json.loads(action.json), dict)


def _hart_rows() -> list[tuple[str, str]]:
    """(JSON, typed) pairs from the Hart table."""
    table = TEXT.split("| decision `label` | JSON action | typed `HartAction` |")[1]
    pairs = []
    for row in table.split("\n\n")[0].splitlines()[2:]:
        cells = row.split(" | ")
        jsons = re.findall(r"`(\{[^`]+\})`", cells[1])
        typed = re.findall(r"`([^`]+)`", cells[2])
        assert len(jsons) == len(typed), row
        pairs += list(zip(jsons, typed, strict=True))
    return pairs


def _game_pairs() -> list[tuple[str, str, str]]:
    """(game, JSON, typed) from the Hart table and the other games' examples."""
    pairs = [("hart", j, t) for j, t in _hart_rows()]
    other = TEXT.split("### Double Crossing")[1]
    found = re.findall(
        r"\| `json` \| `(\{[^`]+\})` \|\n\| `typed` \| `typed \{ (\w+) \{ (.+) \} \}`", other
    )
    pairs += [(game, j, t) for j, game, t in found]
    return pairs


@pytest.mark.parametrize(("game", "as_json", "typed"), _game_pairs())
def test_each_json_action_and_its_typed_form_say_the_same(
    game: str, as_json: str, typed: str
) -> None:
    value = json.loads(as_json)
    engines.get(game).parse_action(0, value)
    message = common_pb2.GameAction()
    text_format.Parse(typed, getattr(message, game))
    assert wire.action_message(game, value) == message


def test_the_openspiel_typed_view_example_says_what_its_json_says() -> None:
    block = next(b for b in _blocks() if b.startswith("view {\n  openspiel {"))
    request = text_format.Parse(block, bot_pb2.DecisionRequest())
    labels = [json.loads(text) for text in request.legal_json]
    view = json.loads(request.view_json)
    ids = list(request.view.openspiel.legal_ids)
    assert request.view == openspiel_view.typed_view(view, labels, ids)
    assert sdk_view.view_json(request.view.openspiel) == view
    assert labels == ["Call", "Raise"]


def test_every_game_has_a_documented_pair() -> None:
    assert {game for game, _, _ in _game_pairs()} >= {"hart", "crossing"}
    assert "placeholder" not in TEXT.lower()


GRPCURL = re.compile(r"-d '(\{.*?\})'\s+(?:\\\s+)?localhost:50051 ([\w.]+)/(\w+)", re.DOTALL)


def test_the_grpcurl_request_bodies_parse() -> None:
    calls = GRPCURL.findall(TEXT)
    assert len(calls) >= 8
    for body, service, method in calls:
        if service.startswith("grpc."):
            continue
        module = account_pb2 if service == "arena.v1.AccountService" else arena_pb2
        name = service.rpartition(".")[2]
        descriptor = module.DESCRIPTOR.services_by_name[name].methods_by_name[method]
        request = getattr(module, descriptor.input_type.name)()
        json_format.Parse(body, request)
