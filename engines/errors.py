"""Engine errors, drawn as a tree so callers know what to catch.

EngineError
  ActionError              (attributes: seat, decision)
    InvalidAction          the wire payload does not parse
    IllegalAction          it parses, but is not legal now
    NotYourDecision        the seat is not among the seats that must answer now
    StaleDecision          the echoed decision number is not the current one
    GameOver               the match is already over
  ReplayMismatch           a record does not reproduce (version drift or a bad log)
  OptionsError             match options that are unknown or out of range
  UnknownGame              no engine of that name is registered
  DataError                a game data file is malformed
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error an engine raises on purpose."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (self.__doc__ or type(self).__name__).strip())


class ActionError(EngineError):
    """An action could not be applied."""

    def __init__(
        self, message: str | None = None, *, seat: int | None = None, decision: int | None = None
    ) -> None:
        super().__init__(message)
        self.seat = seat
        self.decision = decision


class InvalidAction(ActionError):
    """The action does not parse."""


class IllegalAction(ActionError):
    """The action parses but is not legal now."""


class NotYourDecision(ActionError):
    """The seat is not among the seats that must answer this decision."""


class StaleDecision(ActionError):
    """The action answers a decision that is no longer current."""


class GameOver(ActionError):
    """The match is over; no action can be applied."""


class ReplayMismatch(EngineError):
    """A record does not reproduce under the current rules."""


class OptionsError(EngineError):
    """The match options are unknown or out of range."""


class UnknownGame(EngineError):
    """No engine of that name is registered."""


class DataError(EngineError):
    """A game data file is malformed."""
