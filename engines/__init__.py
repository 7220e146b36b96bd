"""Pure, deterministic rules engines behind one contract (see `engines.api`).

`Json` and the random generators load at once, and so does the rest of the contract where it is
installed. The bot SDK's slim distribution (sdk/python/) ships this very file with `json_value`
and `rng` alone: there `from engines import Json` works as in the full install, and any other name
is looked up on first use (PEP 562) and fails as missing. The full install imports eagerly because
the submodule `engines.replay` shares its name with the function `replay`: once anything imports
the submodule, the package attribute would be the module, not the function.
"""

from __future__ import annotations

import importlib
from typing import Any

# Before any engine module loads: a compiled build older than its sources must not run.
try:
    from engines.build_guard import guard
except ModuleNotFoundError as absent:  # the slim SDK ships no engine modules to guard
    if absent.name != "engines.build_guard":
        raise
else:
    guard()

from engines.json_value import Json
from engines.rng import HashRng, Rng, ScriptedRng

try:
    from engines.api import (
        ActionSpace,
        Decision,
        Event,
        ListedSpace,
        Outcome,
        Rules,
        Seat,
        Termination,
        Transition,
    )
    from engines.driver import MatchDriver
    from engines.errors import (
        ActionError,
        DataError,
        EngineError,
        GameOver,
        IllegalAction,
        InvalidAction,
        NotYourDecision,
        OptionsError,
        ReplayMismatch,
        StaleDecision,
        UnknownGame,
    )
    from engines.move import Move
    from engines.options import Option
    from engines.record import Record
    from engines.registry import get, names, register
    from engines.replay import replay
    from engines.spaces import IntRange, MixedSpace
except ModuleNotFoundError as missing:  # the slim SDK: json_value and rng alone
    if not (missing.name or "").startswith("engines."):
        raise

_LAZY = {
    "engines.api": (
        "ActionSpace",
        "Decision",
        "Event",
        "ListedSpace",
        "Outcome",
        "Rules",
        "Seat",
        "Termination",
        "Transition",
    ),
    "engines.driver": ("MatchDriver",),
    "engines.errors": (
        "ActionError",
        "DataError",
        "EngineError",
        "GameOver",
        "IllegalAction",
        "InvalidAction",
        "NotYourDecision",
        "OptionsError",
        "ReplayMismatch",
        "StaleDecision",
        "UnknownGame",
    ),
    "engines.move": ("Move",),
    "engines.options": ("Option",),
    "engines.record": ("Record",),
    "engines.registry": ("get", "names", "register"),
    "engines.replay": ("replay",),
    "engines.spaces": ("IntRange", "MixedSpace"),
}
_HOME = {name: module for module, names_ in _LAZY.items() for name in names_}


def __getattr__(name: str) -> Any:
    """Load a contract name from its module on first use (and keep it here)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'engines' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "ActionError",
    "ActionSpace",
    "DataError",
    "Decision",
    "EngineError",
    "Event",
    "GameOver",
    "HashRng",
    "IllegalAction",
    "IntRange",
    "InvalidAction",
    "Json",
    "ListedSpace",
    "MatchDriver",
    "MixedSpace",
    "Move",
    "NotYourDecision",
    "Option",
    "OptionsError",
    "Outcome",
    "Record",
    "ReplayMismatch",
    "Rng",
    "Rules",
    "ScriptedRng",
    "Seat",
    "StaleDecision",
    "Termination",
    "Transition",
    "UnknownGame",
    "get",
    "names",
    "register",
    "replay",
]
