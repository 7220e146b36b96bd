"""OpenSpiel's games as Arena games: `openspiel/<name>`, curated or unchecked (see docs/games.md).

The adapter (`adapter.py`) needs the `open-spiel` wheel, an optional extra
(`pip install -e '.[openspiel]'`, included by `make install`). This package itself imports
nothing from it, so that the registry can name the curated games, and say what to install,
without it.

| OpenSpiel      | Arena                                                 | where                  |
| -------------- | ----------------------------------------------------- | ---------------------- |
| chance node    | drawn in `start`/`step` from the match's seeded stream | chance.sample_outcome  |
| simultaneous   | one decision of every acting seat                     | adapter.OpenSpielRules |
| info state     | a seat's view (string and tensor)                     | adapter.view           |
| action string  | the action, on the wire and in listings               | adapter.labels         |
| returns        | the outcome's ranks and scores                        | adapter.OpenSpielRules |
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from engines.api import Rules
from engines.errors import UnknownGame
from engines.json_value import Json

PREFIX = "openspiel/"

CURATED: Mapping[str, tuple[tuple[int, ...], Mapping[str, Json]]] = MappingProxyType(
    {
        # name: (seat counts checked, options that shorten conformance matches)
        # Hidden information: cards, dice, ships or moves another seat may not see.
        "kuhn_poker": ((2, 3), {}),
        "leduc_poker": ((2, 3), {}),
        "liars_dice": ((2,), {}),
        "first_sealed_auction": ((2, 3), {}),
        "blotto": ((2,), {}),
        "phantom_ttt": ((2,), {}),
        "latent_ttt": ((2,), {}),
        "dark_hex": ((2,), {}),
        "battleship": (
            (2,),
            {
                "board_width": 4,
                "board_height": 4,
                "ship_sizes": "[2;3]",
                "ship_values": "[1.0;1.0]",
                "num_shots": 8,
            },
        ),
        "hearts": ((4,), {}),
        "euchre": ((4,), {}),
        "oh_hell": ((3, 4), {"num_suits": 3, "num_cards_per_suit": 5}),
        "tiny_bridge_4p": ((4,), {}),
        "go_fish": ((2, 3), {"ranks": 5}),
        "crazy_eights": ((2,), {"max_turns": 30}),
        "dou_dizhu": ((3,), {}),
        "sheriff": ((2,), {}),
        # Simultaneous moves, bids seen once revealed.
        "goofspiel": ((2, 3), {"num_cards": 5}),
        "oshi_zumo": ((2,), {}),
        # Perfect information.
        "tic_tac_toe": ((2,), {}),
        "connect_four": ((2,), {}),
        "breakthrough": ((2,), {"rows": 5, "columns": 5}),
        "oware": ((2,), {}),
        "mancala": ((2,), {}),
        "othello": ((2,), {}),
        "hex": ((2,), {"num_rows": 5, "num_cols": 5}),
        "havannah": ((2,), {"board_size": 4}),
        "go": ((2,), {"board_size": 5}),
        "chess": ((2,), {}),
        "clobber": ((2,), {}),
        "dots_and_boxes": ((2,), {}),
        "nim": ((2,), {}),
        # Perfect information with dice.
        "pig": ((2, 3), {"winscore": 20}),
        "backgammon": ((2,), {"hyper_backgammon": True}),
        "einstein_wurfelt_nicht": ((2,), {}),
    }
)
"""The games that pass the conformance suite at these seat counts (tests/engines/test_openspiel)."""

MISSING = (
    "OpenSpiel games need the open-spiel wheel: install it with "
    "`.venv/bin/pip install -e '.[openspiel]'` (`make install` does)"
)

_rules: dict[str, Rules[Any, Any, Any]] = {}


def curated_names() -> tuple[str, ...]:
    """The registry names of the curated games, sorted."""
    return tuple(sorted(PREFIX + name for name in CURATED))


def rules_for(name: str) -> Rules[Any, Any, Any]:
    """The rules of `openspiel/<game>`; `UnknownGame` says what to install or what exists."""
    cached = _rules.get(name)
    if cached is not None:
        return cached
    try:
        # Imported here, not at the top: the wheel is optional and this package must load without.
        adapter = importlib.import_module("engines.openspiel.adapter")
    except ImportError:
        raise UnknownGame(f"{name}: {MISSING}") from None
    game = name.removeprefix(PREFIX)
    if game not in adapter.registered_names():
        raise UnknownGame(f"unknown game {name!r}: OpenSpiel has no game {game!r}")
    checked = game in CURATED
    seats, short = CURATED.get(game, (adapter.seat_range(game), {}))
    options = adapter.options_of(game)
    if not checked:
        options = (*options, adapter.Option("unchecked", bool, False, UNCHECKED))
    kind = adapter.pyspiel.load_game(game).get_type()
    attrs = {
        "name": name,
        "title": f"{kind.long_name} (OpenSpiel{'' if checked else ', unchecked'})",
        "seat_counts": seats,
        "options_schema": options,
        "conformance_options": MappingProxyType(dict(short)),
        "game_name": game,
        "checked": checked,
    }
    rules: Rules[Any, Any, Any] = type(f"OpenSpiel_{game}", (adapter.OpenSpielRules,), attrs)()
    _rules[name] = rules
    return rules


UNCHECKED = "this game has not passed Arena's conformance suite: set true to play it anyway"
