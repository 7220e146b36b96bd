"""Server-drawn boards: a game's public view as HTML and SVG, one module per game.

A game's module `arena.web.boards.<game>` defines `board(view, names) -> str`, and may define
`defs(view) -> str`: what every step shares (drawn once per page, used by reference). Only the
public view goes in, so nothing a spectator may not see can come out. Every text is escaped.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from typing import Any

from markupsafe import escape

OPENSPIEL = "openspiel/"
"""The prefix of OpenSpiel's games, all drawn by `arena.web.boards.openspiel`."""
SEAT_COLOURS = ("#d1495b", "#2e86ab", "#e8a33d", "#3b8b5a", "#8e5ea2", "#5c6b73")


def colour(seat: int) -> str:
    """The colour of a seat, the same on every page."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def seat_tag(seat: int | None, names: Sequence[str]) -> str:
    """A seat's name in its colour."""
    if seat is None:
        return "<span class='seat'>—</span>"
    name = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
    return f"<span class='seat' style='--c:{colour(seat)}'>{escape(name)}</span>"


def counts(mapping: dict[str, Any]) -> str:
    """`{"jug": 2, "cigar": 0}` as "2 jug" (zeros left out)."""
    shown = [f"{n} {escape(k)}" for k, n in mapping.items() if n]
    return ", ".join(shown) or "none"


def board(game: str, view: Any, names: Sequence[str]) -> str:
    """The board of one public step of `game` as an HTML fragment."""
    if game.startswith(OPENSPIEL):  # one module draws every OpenSpiel game
        module = importlib.import_module("arena.web.boards.openspiel")
        return str(module.board(game.removeprefix(OPENSPIEL), view, names))
    try:
        module = importlib.import_module(f"arena.web.boards.{game}")
    except ModuleNotFoundError:
        return f"<pre class='raw'>{escape(json.dumps(view, indent=1))}</pre>"
    drawn: str = module.board(view, names)
    return drawn


def defs(game: str, view: Any) -> str:
    """The shared SVG definitions of a game's boards (empty if it has none)."""
    if game.startswith(OPENSPIEL):
        return ""
    try:
        module = importlib.import_module(f"arena.web.boards.{game}")
    except ModuleNotFoundError:
        return ""
    make = getattr(module, "defs", None)
    return "" if make is None else str(make(view))
