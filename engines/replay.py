"""Exact replay of a recorded match, through the match driver."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engines.api import Rules
from engines.driver import MatchDriver
from engines.errors import EngineError, ReplayMismatch
from engines.move import Move
from engines.record import Record

Step = Move
"""One replayed decision (the driver's `Move`)."""


def driver_for(rules: Rules[Any, Any, Any], record: Record) -> MatchDriver[Any, Any]:
    """A driver at the start of `record`'s match; a record of another game or version raises."""
    if record.game != rules.name:
        raise ReplayMismatch(f"record is of {record.game!r}, not {rules.name!r}")
    if record.rules_version != rules.version:
        raise ReplayMismatch(
            f"record was made by {rules.name} rules v{record.rules_version}, "
            f"these are v{rules.version}"
        )
    try:
        return MatchDriver(rules, record.seats, record.options, record.seed)
    except EngineError as exc:
        raise ReplayMismatch(f"record does not set up: {exc}") from exc


def _moves(driver: MatchDriver[Any, Any], record: Record) -> Iterator[Move[Any, Any]]:
    """Play `record`'s moves on `driver`, one at a time; divergence raises `ReplayMismatch`."""
    for index, wire_joint in enumerate(record.moves):
        if driver.decision is None:
            raise ReplayMismatch(f"move {index} recorded after the match ended")
        try:
            yield driver.play_wire(wire_joint)
        except EngineError as exc:
            raise ReplayMismatch(f"move {index} does not replay: {exc}") from exc


def steps(rules: Rules[Any, Any, Any], record: Record) -> Iterator[Move[Any, Any]]:
    """Replay `record` one decision at a time; any divergence raises `ReplayMismatch`."""
    yield from _moves(driver_for(rules, record), record)


def replayed(rules: Rules[Any, Any, Any], record: Record) -> MatchDriver[Any, Any]:
    """A driver that has played all of `record`'s moves (to resume the match from there)."""
    driver = driver_for(rules, record)
    for _ in _moves(driver, record):
        pass
    return driver


def replay(rules: Rules[Any, Any, Any], record: Record) -> Any:
    """Rebuild the final state of `record`; any divergence raises `ReplayMismatch`."""
    return replayed(rules, record).state
