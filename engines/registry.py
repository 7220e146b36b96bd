"""The registry of games: `engines.get(name)` and `engines.names()`."""

from __future__ import annotations

import importlib
from typing import Any

from engines.api import Rules
from engines.errors import UnknownGame
from engines.openspiel import curated_names, rules_for

BUILTIN_GAMES = ("hart", "crossing", "loyang")
"""The game packages under `engines/`; each registers its `Rules` when imported."""

_registry: dict[str, Rules[Any, Any, Any]] = {}
_loaded = False


def register(rules: Rules[Any, Any, Any]) -> Rules[Any, Any, Any]:
    """Add a game to the registry; a second game of the same name is a programming error."""
    if rules.name in _registry and type(_registry[rules.name]) is not type(rules):
        raise ValueError(f"game {rules.name!r} is registered twice")
    _registry[rules.name] = rules
    return rules


def _load_builtin() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for game in BUILTIN_GAMES:
            importlib.import_module(f"engines.{game}")


def get(name: str) -> Rules[Any, Any, Any]:
    """The rules of game `name`; an unknown name raises `UnknownGame` listing the known ones.

    `openspiel/<game>` names any OpenSpiel game (see `engines.openspiel`); they are made on
    first use and stay out of `names()`, which the seed games' suites walk.
    """
    _load_builtin()
    if name.startswith("openspiel/"):
        return rules_for(name)
    try:
        return _registry[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(names())}") from None


def names() -> tuple[str, ...]:
    """The names of every registered game, sorted."""
    _load_builtin()
    return tuple(sorted(_registry))


def openspiel_names() -> tuple[str, ...]:
    """The curated OpenSpiel games (`get` needs the open-spiel wheel to load them)."""
    return curated_names()
