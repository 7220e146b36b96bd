"""The strategy interface shared by in-process bots and bots that play over gRPC.

A strategy sees a `Turn`: the seat's view and the legal actions in their JSON wire forms, exactly
what a remote bot receives. So a strategy that plays well in process plays the same over the wire.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from engines import Json, Rng

Wire = Any
"""A JSON value as parsed from the wire (what `json.loads` returns)."""


@dataclass(frozen=True)  # no slots=True: the bot SDK runs on Python 3.9, which lacks it
class Turn:
    """One decision request, as a bot sees it."""

    game: str
    seat: int
    seats: int
    decision: int
    """The decision number to echo."""
    label: str
    """What is being decided, e.g. "pack", "declare", "inspect", "bribe"."""
    view: Wire
    """The seat's observation (the game's `dump_observation`)."""
    legal: tuple[Wire, ...] | None
    """The legal actions in wire form, or None when the space is too large to list."""
    space: Wire
    """The space's description (see `engines.spaces`) when `legal` is None."""
    match_id: int = 0
    """The match over the wire; 0 in process."""

    def choices(self) -> tuple[Wire, ...]:
        """The legal actions, expanding ranges of a described space when needed."""
        if self.legal is not None:
            return self.legal
        out: list[Wire] = list(self.space.get("actions", []))
        for r in self.space.get("ranges", []):
            for value in range(r["min"], r["max"] + 1):
                out.append({**r["template"], r["field"]: value})
        return tuple(out)


class Strategy(ABC):
    """A bot's brain: pick a wire action for a turn."""

    name: ClassVar[str]

    @abstractmethod
    def decide(self, turn: Turn, rng: Rng) -> Json:
        """Return the chosen action in wire form."""


class RandomStrategy(Strategy):
    """Uniformly random among the legal actions; plays every game."""

    name = "random"

    def decide(self, turn: Turn, rng: Rng) -> Json:
        if turn.legal is not None:
            return turn.legal[rng.below(len(turn.legal))]  # type: ignore[no-any-return]
        listed = list(turn.space.get("actions", []))
        ranges = [r for r in turn.space.get("ranges", []) if r["max"] >= r["min"]]
        total = len(listed) + sum(r["max"] - r["min"] + 1 for r in ranges)
        index = rng.below(total)
        if index < len(listed):
            return listed[index]  # type: ignore[no-any-return]
        index -= len(listed)
        for r in ranges:
            size = r["max"] - r["min"] + 1
            if index < size:
                return {**r["template"], r["field"]: r["min"] + index}
            index -= size
        raise AssertionError("unreachable")


_HEURISTICS = {
    "hart": "arena.sdk.bots.hart:HartHeuristic",
    "crossing": "arena.sdk.bots.crossing:CrossingHeuristic",
    "loyang": "arena.sdk.bots.loyang:LoyangHeuristic",
}


_OPENSPIEL = {
    "mcts": "arena.sdk.bots.openspiel:MctsStrategy",
    "cfr": "arena.sdk.bots.openspiel:CfrStrategy",
}


def _openspiel_strategies(game: str) -> tuple[str, ...]:
    """The OpenSpiel strategies for `game` beyond random; none without the open-spiel wheel."""
    if not game.startswith("openspiel/"):
        return ()
    try:
        # Imported here: the wheel is optional and pyspiel takes a while to load.
        module = importlib.import_module("arena.sdk.bots.openspiel")
    except ImportError:
        return ()
    found: tuple[str, ...] = module.strategies_for(game)
    return found


def strategy_names(game: str) -> tuple[str, ...]:
    """The strategies available for `game`."""
    if game in _HEURISTICS:
        return ("random", "heuristic")
    return ("random", *_openspiel_strategies(game))


def strategy(game: str, name: str) -> Strategy:
    """A fresh strategy `name` for `game`; unknown names raise ValueError listing the known ones."""
    if name == "random":
        return RandomStrategy()
    if name == "heuristic" and game in _HEURISTICS:
        module, cls = _HEURISTICS[game].split(":")
        made: Strategy = getattr(importlib.import_module(module), cls)()
        return made
    if name in _OPENSPIEL and name in _openspiel_strategies(game):
        module, cls = _OPENSPIEL[name].split(":")
        found: Strategy = getattr(importlib.import_module(module), cls)()
        return found
    raise ValueError(f"no strategy {name!r} for {game}; known: {', '.join(strategy_names(game))}")
