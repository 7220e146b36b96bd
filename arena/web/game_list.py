"""The games page: OpenSpiel's curated games, each with its seats, kind and how the viewer
draws it (a grid, a chessboard, a card table, or the observation text)."""

from __future__ import annotations

import functools
import importlib
from typing import Any

import engines
from arena.web.boards.openspiel import drawing
from engines.openspiel import MISSING, PREFIX
from engines.registry import openspiel_names


@functools.cache
def openspiel_games() -> dict[str, Any]:
    """Every curated OpenSpiel game (name, title, seat counts, kind, drawn) and, when the
    open-spiel wheel is missing, what to install (the games are then listed by name only)."""
    try:
        pyspiel = importlib.import_module("pyspiel")
    except ImportError:
        names = [{"name": n, "title": n.removeprefix(PREFIX)} for n in openspiel_names()]
        return {"games": names, "missing": MISSING}
    out = []
    for name in openspiel_names():
        rules = engines.get(name)
        short = name.removeprefix(PREFIX)
        kind = pyspiel.load_game(short).get_type()
        if kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            nature = "simultaneous moves"
        elif kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION:
            nature = "perfect information"
        else:
            nature = "hidden information"
        out.append(
            {
                "name": name,
                "title": rules.title.removesuffix(" (OpenSpiel)"),
                "seat_counts": list(rules.seat_counts),
                "kind": nature,
                "chance": kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC,
                "board": drawing(short),
            }
        )
    return {"games": out, "missing": None}
