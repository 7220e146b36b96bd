"""The one boundary where a bot's answer becomes an engine action.

A bot's `Action` message is untrusted input. `to_action` turns it into an action and hands it to
`take` (the match driver's `answer`, which checks it once and keeps it), or raises an
`engines.ActionError` naming what was wrong; nothing else escapes it. Any other exception raised
while parsing or checking an answer (a parser that met input it did not expect) becomes
`InvalidAction`, so the outcome of any answer is the documented one: a Problem, a strike, the
default action, and the match goes on. The referee's match runner and the fuzz tests
(`tests/referee/test_answer_fuzz.py`) both call this function.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from arena.ops import metrics
from arena.protocol import wire
from arena.v1 import bot_pb2
from engines import ActionError, EngineError, InvalidAction, Rules, StaleDecision

log = logging.getLogger(__name__)

ECHO_CHARS = 80
"""How much of an unexpected error's text a Problem message echoes."""

_reported: set[tuple[str, str]] = set()
"""(game, exception type) pairs already logged with a traceback, so a bot cannot flood the log."""


Take = Callable[[int, int, Any], None]
"""Checks (seat, decision number, action) and keeps it, raising `ActionError` if it is not legal:
`MatchDriver.answer` (or `MatchDriver.check` to check without keeping)."""


def to_action(
    rules: Rules[Any, Any, Any],
    take: Take,
    seat: int,
    number: int,
    answer: bot_pb2.Action,
    listing: Sequence[Any],
) -> Any:
    """The action `answer` names for `seat` at decision `number`, once `take` accepted it.

    `listing` holds the legal actions the request listed (what an `index` answer refers to).
    Raises only `ActionError` subclasses.
    """
    try:
        action = _parse(rules, seat, number, answer, listing)
        take(seat, number, action)
    except ActionError:
        raise
    except EngineError as exc:  # an engine error that is not about the action: still a strike
        raise InvalidAction(str(exc), seat=seat) from None
    except Exception as exc:  # untrusted input reached a parser bug: a strike, never a crash
        raise _unexpected(rules.name, seat, exc) from None
    return action


def _unexpected(game: str, seat: int, exc: Exception) -> InvalidAction:
    kind = type(exc).__name__
    metrics.ANSWER_PARSER_ERRORS.labels(game, kind).inc()
    if (game, kind) not in _reported:
        _reported.add((game, kind))
        log.error("a %s answer raised %s while it was read", game, kind, exc_info=exc)
    text = str(exc)
    if len(text) > ECHO_CHARS:
        text = text[:ECHO_CHARS] + "..."
    return InvalidAction(f"the answer could not be read ({kind}: {text})", seat=seat)


def _parse(
    rules: Rules[Any, Any, Any],
    seat: int,
    number: int,
    answer: bot_pb2.Action,
    listing: Sequence[Any],
) -> Any:
    if answer.decision != number:
        raise StaleDecision(
            f"answer names decision {answer.decision}, but decision {number} is open",
            seat=seat,
            decision=number,
        )
    choice = answer.WhichOneof("choice")
    if choice == "index":
        if not 0 <= answer.index < len(listing):
            raise InvalidAction(
                f"index {answer.index} is out of range: {len(listing)} legal actions listed",
                seat=seat,
            )
        return listing[answer.index]
    if choice == "typed":
        try:
            game, dumped = wire.action_json(answer.typed)
        except wire.WireError as exc:
            raise InvalidAction(str(exc), seat=seat) from None
        if game != rules.name:
            raise InvalidAction(f"a {game} action in a {rules.name} match", seat=seat)
        return rules.parse_action(seat, dumped)
    if choice == "json":
        return rules.parse_wire(seat, answer.json)
    raise InvalidAction("the action sets none of index, typed and json", seat=seat)
