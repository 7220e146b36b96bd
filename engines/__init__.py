"""Pure, deterministic rules engines behind one contract (see `engines.api`)."""

from engines.api import (
    ActionSpace,
    Decision,
    Json,
    ListedSpace,
    Option,
    Outcome,
    Rules,
    Seat,
    Termination,
)
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
from engines.events import Event
from engines.registry import get, names, register
from engines.replay import Record, replay
from engines.rng import HashRng, Rng, ScriptedRng
from engines.spaces import IntRange, MixedSpace

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
    "MixedSpace",
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
    "UnknownGame",
    "get",
    "names",
    "register",
    "replay",
]
