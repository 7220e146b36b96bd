"""Readable, coloured match logs for the terminal, one module per game with a generic fallback.

A game's module `arena.render.<game>` may define:
    step_lines(rules, before, decision, joint, after, paint, events) -> list[str]
        (`events`: what the decision produced, from the match driver's `Move.events`)
    final_lines(rules, final, paint) -> list[str]
Anything it leaves out falls back to the generic forms below.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any

from engines import Decision, Event, Outcome, Rules

SEAT_COLOURS = (31, 32, 33, 34, 35, 36)


class Paint:
    """ANSI colours when writing to a terminal, plain text otherwise."""

    def __init__(self, enabled: bool | None = None, names: Mapping[int, str] | None = None) -> None:
        self.enabled = sys.stdout.isatty() if enabled is None else enabled
        self.names = dict(names or {})
        """Who sits in each seat (a stored match's bots); a seat without one is `seat N`."""

    def __call__(self, text: str, code: int) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def seat(self, seat: int, text: str | None = None) -> str:
        """A seat's name in its own colour."""
        return self(
            text or self.names.get(seat) or f"seat {seat}", SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        )

    def bold(self, text: str) -> str:
        return self(text, 1)

    def dim(self, text: str) -> str:
        return self(text, 2)


def _module(game: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"arena.render.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"arena.render.{game}":
            raise
        return None


def step_lines(
    rules: Rules[Any, Any, Any],
    before: Any,
    decision: Decision,
    joint: Mapping[int, Any],
    after: Any,
    paint: Paint,
    events: Sequence[Event] = (),
) -> list[str]:
    """The log lines of one decision; `events` are those it produced (`Move.events`)."""
    module = _module(rules.name)
    custom: Callable[..., list[str]] | None = getattr(module, "step_lines", None)
    if custom is not None:
        return custom(rules, before, decision, joint, after, paint, events)
    acts = ", ".join(
        f"{paint.seat(s)}: {json.dumps(rules.dump_action(a))}" for s, a in sorted(joint.items())
    )
    return [f"#{decision.number:<4} {decision.label:<12} {acts}"]


def final_lines(
    rules: Rules[Any, Any, Any], final: Any, outcome: Outcome, paint: Paint
) -> list[str]:
    """The closing lines: game-specific detail, then the ranking."""
    module = _module(rules.name)
    custom: Callable[..., list[str]] | None = getattr(module, "final_lines", None)
    lines = custom(rules, final, paint) if custom is not None else []
    lines.append(paint.bold(f"Final ranking ({outcome.termination.value}):"))
    for seat in sorted(range(len(outcome.ranks)), key=lambda s: (outcome.ranks[s], s)):
        lines.append(f"  {outcome.ranks[seat]}. {paint.seat(seat)}  score {outcome.scores[seat]:g}")
    if outcome.rating is not None:
        lines.append(f"Rating: {outcome.rating}")
    return lines
