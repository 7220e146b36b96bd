"""Request values checked at the door: each bad one is an `InvalidArgument` naming field and range.

The public service turns `InvalidArgument` into gRPC `INVALID_ARGUMENT`, so a client never sees
`UNKNOWN` (an exception deep inside) or `UNAVAILABLE` (which tells it to retry) for a value it
sent. The ranges are documented in docs/operations.md, "Limits".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp

from arena.referee.clock import Clock
from arena.v1 import common_pb2
from arena.versiontest.entrants import parse_entrant

K = TypeVar("K")

NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A bot name, matched in full (`fullmatch`: a trailing newline is not allowed)."""
PLAYER_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}(@[A-Za-z0-9._-]{1,64})?")
"""A name that plays: a bot's, or NAME@LABEL, a version's own bot (versiontest/entrants.py)."""

PER_DECISION = (timedelta(milliseconds=1), timedelta(hours=24))
"""The allowed range of a clock's per-decision limit."""
BANK = (timedelta(0), timedelta(hours=24))
"""The allowed range of a clock's bank."""
GRACE = (timedelta(0), timedelta(minutes=1))
"""The allowed range of a clock's network grace."""
MAX_STRIKES = (0, 1000)
"""The allowed range of a clock's strike limit (0 = never forfeit)."""
CONNECT_TIMEOUT = (timedelta(0), timedelta(hours=1))
"""The allowed range of CreateMatch's connect_timeout."""
WATCH_DELAY = (timedelta(0), timedelta(hours=24))
"""The allowed range of WatchMatch's delay."""
TOURNAMENT_ROUNDS = (1, 1000)
"""The allowed range of a tournament's rounds."""
TEXT_CHARS = 200
"""The longest free text (a tournament name, a game name) a request may carry."""
YEARS = (1970, 9999)
"""The years a timestamp in a request may fall in."""
FORFEIT_LIMIT = (0, 1000)
"""The allowed range of a tournament's forfeit limit (0 = never withdraw for forfeits)."""
SCHEDULE_ROUNDS = (0, 1000)
"""The allowed range of a schedule's rounds per edition (0 = chosen from the field size)."""
SCHEDULE_EVERY = (timedelta(seconds=1), timedelta(days=366))
"""The allowed range of the time between a schedule's editions."""
LADDER_CONCURRENCY = (0, 100)
"""The allowed range of a ladder's matches per bot at once (0 = 1)."""
TEST_ELO = (-1000.0, 1000.0)
"""The allowed range of a version test's elo0 and elo1."""
TEST_ERROR_RATE = (0.0, 0.49)
"""The allowed range of a version test's alpha and beta (0 = 0.05)."""
TEST_SEATS = (0, 6)
"""The allowed range of a version test's seats per match (0 = 2)."""
TEST_FILLERS = 8
"""The most filler bots a version test may name."""
TEST_MAX_MATCHES = (0, 10_000_000)
"""The allowed range of a version test's match cap (0 = none)."""
TEST_IN_FLIGHT = (0, 64)
"""The allowed range of a version test's sets playing at once (0 = 2)."""


class InvalidArgument(ValueError):
    """A request value outside its documented range; the message starts with the field's name."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _human(value: timedelta) -> str:
    seconds = value.total_seconds()
    for unit, size in (("h", 3600), ("min", 60), ("s", 1)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds * 1000:g} ms"


def duration(field: str, wire: Duration, bounds: tuple[timedelta, timedelta]) -> timedelta:
    """A Duration within `bounds` (inclusive), checked before it is converted (no overflow)."""
    low, high = bounds
    what = f"must be between {_human(low)} and {_human(high)}"
    if not -(2**40) < wire.seconds < 2**40 or not -(10**9) < wire.nanos < 10**9:
        raise InvalidArgument(field, f"{what}, got {wire.seconds} s")
    value = timedelta(seconds=wire.seconds, microseconds=wire.nanos // 1000)
    if not low <= value <= high:
        raise InvalidArgument(field, f"{what}, got {value.total_seconds():g} s")
    return value


def integer(field: str, value: int, low: int, high: int) -> int:
    """`value` if `low <= value <= high`."""
    if not low <= value <= high:
        raise InvalidArgument(field, f"must be between {low} and {high}, got {value}")
    return value


def real(field: str, value: float, low: float, high: float) -> float:
    """`value` if it is a number with `low <= value <= high` (NaN never is)."""
    if not low <= value <= high:
        raise InvalidArgument(field, f"must be between {low:g} and {high:g}, got {value:g}")
    return value


def entrant(field: str, value: str) -> str:
    """A test's side: a bot's name, or `NAME@LABEL` for one of its versions."""
    try:
        parse_entrant(value)
    except ValueError as exc:
        raise InvalidArgument(field, str(exc)[:200]) from None
    return bot_name(field, value)


def positive_id(field: str, value: int) -> int:
    """An id: a positive integer."""
    if value <= 0:
        raise InvalidArgument(field, f"must be a positive id, got {value}")
    return value


def limit(field: str, value: int, default: int, maximum: int) -> int:
    """A page size: 0 means `default`, otherwise 1..`maximum`."""
    if value == 0:
        return default
    return integer(field, value, 1, maximum)


def choice(field: str, value: K, names: Mapping[K, str]) -> str:
    """The name `names` gives `value`; an unknown value lists the known ones."""
    name = names.get(value)
    if name is None:
        raise InvalidArgument(field, f"{value!r} is not one of {sorted(map(str, names.values()))}")
    return name


def text(field: str, value: str, required: bool = True) -> str:
    """Free text: printable, at most `TEXT_CHARS` characters, and not empty if `required`."""
    if required and not value.strip():
        raise InvalidArgument(field, "must not be empty")
    if len(value) > TEXT_CHARS or not value.isprintable():
        raise InvalidArgument(field, f"must be at most {TEXT_CHARS} printable characters")
    return value


def bot_name(field: str, value: str) -> str:
    """A bot that plays: `new_bot_name`, or `NAME@LABEL`, a version's own bot."""
    if PLAYER_PATTERN.fullmatch(value) is None:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise InvalidArgument(
            field,
            f"a bot name is 1-64 letters, digits, '.', '_' or '-' (NAME@LABEL for a version of "
            f"a bot), got {shown!r}",
        )
    return value


def new_bot_name(field: str, value: str) -> str:
    """A name to register: 1-64 letters, digits, '.', '_' or '-', nothing else (no trailing
    newline; '@' is kept for versions' own bots)."""
    if NAME_PATTERN.fullmatch(value) is None:
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise InvalidArgument(
            field, f"a bot name is 1-64 letters, digits, '.', '_' or '-', got {shown!r}"
        )
    return value


def timestamp(field: str, wire: Timestamp) -> datetime:
    """A Timestamp within `YEARS`, as an aware UTC datetime."""
    low = Timestamp()
    low.FromJsonString(f"{YEARS[0]}-01-01T00:00:00Z")
    high = Timestamp()
    high.FromJsonString(f"{YEARS[1]}-12-31T23:59:59Z")
    if not low.seconds <= wire.seconds <= high.seconds or not 0 <= wire.nanos < 10**9:
        raise InvalidArgument(field, f"must fall in the years {YEARS[0]}-{YEARS[1]}")
    return wire.ToDatetime(tzinfo=UTC)


def clock(default: Clock, wire: common_pb2.Clock | None, field: str = "clock") -> Clock:
    """`default` with the fields set in `wire`, each checked against its documented range."""
    if wire is None:
        return default
    if wire.HasField("per_decision"):
        duration(f"{field}.per_decision", wire.per_decision, PER_DECISION)
    if wire.HasField("bank"):
        duration(f"{field}.bank", wire.bank, BANK)
    if wire.HasField("grace"):
        duration(f"{field}.grace", wire.grace, GRACE)
    if wire.HasField("max_strikes"):
        integer(f"{field}.max_strikes", wire.max_strikes, *MAX_STRIKES)
    return default.merged(wire)


def request_clock(default: Clock, request: Any) -> Clock:
    """The clock a request asks for: its `clock` field over `default`, each field checked."""
    return clock(default, request.clock if request.HasField("clock") else None)


def check_clock(field: str, value: Clock) -> Clock:
    """`value` if each of its fields is within its documented range (a server's default clock)."""
    for name, bounds in (("per_decision", PER_DECISION), ("bank", BANK), ("grace", GRACE)):
        low, high = bounds
        got: timedelta = getattr(value, name)
        if not low <= got <= high:
            raise InvalidArgument(
                f"{field}.{name}",
                f"must be between {_human(low)} and {_human(high)}, got {got.total_seconds():g} s",
            )
    integer(f"{field}.max_strikes", value.max_strikes, *MAX_STRIKES)
    return value
