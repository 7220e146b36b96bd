"""Pure, deterministic rules engines behind one contract (see `engines.api`)."""

from engines.api import (
    ActionSpace,
    Decision,
    Event,
    Json,
    ListedSpace,
    Outcome,
    Rules,
    Seat,
    Termination,
    Transition,
)
from engines.driver import MatchDriver, Move
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
from engines.options import Option
from engines.record import Record
from engines.registry import get, names, register
from engines.replay import replay
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
