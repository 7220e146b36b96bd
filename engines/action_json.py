"""Untrusted action JSON: the bounds on a bot's action text, checked before it is decoded."""

from __future__ import annotations

import json
import re

from engines.errors import InvalidAction

MAX_WIRE_CHARS = 64 * 1024
"""The longest JSON text of an action an engine reads (the longest real action is ~200 chars)."""
MAX_WIRE_DEPTH = 16
"""The deepest nesting of lists and objects in an action's JSON text (real actions reach 2)."""


MAX_WIRE_BRACKETS = 1000
"""The most '[' and '{' an action's JSON text may hold at all (real actions hold under 5)."""
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def wire_depth(text: str) -> int:
    """How deeply lists and objects nest in the JSON text `text` (brackets in strings ignored)."""
    depth = deepest = 0
    for char in _NOT_BRACKETS.sub("", _STRINGS.sub("", text)):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def load_wire(text: str, seat: int | None = None) -> object:
    """The JSON value of an untrusted action text, bounded in size and depth before decoding.

    Raises `InvalidAction` naming the bound for a text longer than `MAX_WIRE_CHARS`, holding more
    than `MAX_WIRE_BRACKETS` brackets or nested deeper than `MAX_WIRE_DEPTH` (which would
    otherwise exhaust the decoder's recursion), and for a text that is not JSON.
    """
    if len(text) > MAX_WIRE_CHARS:
        raise InvalidAction(
            f"action JSON is {len(text)} characters; at most {MAX_WIRE_CHARS} are read", seat=seat
        )
    brackets = text.count("[") + text.count("{")
    if brackets > MAX_WIRE_BRACKETS:
        raise InvalidAction(
            f"action JSON holds {brackets} '[' and '{{'; at most {MAX_WIRE_BRACKETS} are read",
            seat=seat,
        )
    # Fewer brackets than the bound cannot nest past it: the scan runs only on unusual texts.
    depth = wire_depth(text) if brackets > MAX_WIRE_DEPTH else 0
    if depth > MAX_WIRE_DEPTH:
        raise InvalidAction(
            f"action JSON nests {depth} levels deep; at most {MAX_WIRE_DEPTH} are read", seat=seat
        )
    try:
        value: object = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidAction(f"action is not valid JSON: {str(exc)[:120]}", seat=seat) from None
    return value
