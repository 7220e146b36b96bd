"""The public views of a match, decision by decision, as spectators may see them.

A finished match is replayed from its stored record once and kept. A running match is replayed
only as far as the decisions logged at least the spectator delay ago, and only its public views
(`referee.spectate`, as the referee's watchers get them) leave this module: never its seed, its
actions or a seat's view.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import engines
from arena.referee.spectate import is_revealed
from arena.storage.db import Database
from arena.storage.rows import DecisionRow, MatchRow, MatchStatus
from engines.driver import MatchDriver


@dataclass(frozen=True, slots=True)
class PublicStep:
    """The public view after one decision (decision -1: the position before the first)."""

    index: int
    decision: int
    label: str
    view: Any


@dataclass
class _Replayed:
    """A match replayed so far: its public steps and the driver after the last of them."""

    driver: MatchDriver[Any, Any]
    steps: list[PublicStep] = field(default_factory=list)
    finished: bool = False


class MatchSteps:
    """Public steps of stored matches, cached; the spectator delay applies to running matches."""

    def __init__(self, db: Database, delay: timedelta, capacity: int = 64) -> None:
        self.db = db
        self.delay = delay
        self.capacity = capacity
        self._cache: OrderedDict[int, _Replayed] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}

    async def steps(self, match: MatchRow, now: datetime | None = None) -> list[PublicStep]:
        """Every public step of `match` that spectators may see now."""
        lock = self._locks.setdefault(match.id, asyncio.Lock())
        async with lock:
            replayed = self._cache.get(match.id)
            if replayed is None:
                rules = engines.get(match.game)
                driver: MatchDriver[Any, Any] = MatchDriver(
                    rules, match.seats, dict(match.options), match.seed
                )
                replayed = _Replayed(driver)
                replayed.steps.append(PublicStep(0, -1, "setup", driver.view(None)))
            if not replayed.finished:
                rows = await self.db.decisions(match.id)
                self._advance(replayed, rows, match, now or datetime.now(UTC))
            self._cache[match.id] = replayed
            self._cache.move_to_end(match.id)
            while len(self._cache) > self.capacity:
                old, _ = self._cache.popitem(last=False)
                self._locks.pop(old, None)
            return list(replayed.steps)

    def _advance(
        self, replayed: _Replayed, rows: list[DecisionRow], match: MatchRow, now: datetime
    ) -> None:
        finished = match.status in (MatchStatus.FINISHED, MatchStatus.ABORTED)
        driver = replayed.driver
        rules = driver.rules
        for row in rows[len(replayed.steps) - 1 :]:
            hidden = row.created_at is None or not is_revealed(row.created_at, self.delay, now)
            if not finished and hidden:
                break
            decision = driver.decision
            if decision is None or decision.number != row.number:
                break  # a log that does not replay is shown as far as it does
            joint = {seat: rules.parse_action(seat, action) for seat, action in row.joint.items()}
            driver.play(joint)
            view = driver.view(None)
            replayed.steps.append(PublicStep(len(replayed.steps), row.number, row.label, view))
        replayed.finished = finished
