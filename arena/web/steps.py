"""The public views of a match, decision by decision, as spectators may see them.

A finished match is replayed from its stored record once and kept. A running match is replayed
only as far as the decisions logged at least the spectator delay ago, and only its public views
(`referee.spectate`, as the referee's watchers get them) leave this module: never its seed, its
actions or a seat's view.

A running match's replay is kept and grown: a later look reads only the decisions logged since
the last (one read per step per web process, whoever watches), and each step is drawn and
encoded once (`encoded`), for its pages of `/steps` and its live stream alike, so a spectator
arriving late at a long match costs no more reads or drawings than one who came early.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import engines
from arena.referee.spectate import is_revealed
from arena.storage.botstats import read_strike_note
from arena.storage.db import Database
from arena.storage.rows import DecisionRow, MatchRow, MatchStatus
from arena.web import boards, story
from arena.web.cache import dumps
from engines.driver import MatchDriver

ENDED = (MatchStatus.FINISHED, MatchStatus.ABORTED)
BOARDS_IN_LINE = 20
"""Up to this many steps are drawn on the event loop; more go to a worker thread."""
REPLAY_IN_LINE = 200
"""Up to this many decisions are replayed on the event loop (about 50-100 us each); more, on a
worker thread, under the match's lock: a first look at a long match stalls no other page."""
DRAWN_BYTES = 64 * 1024 * 1024
"""Drawn steps kept per process, over every running match (least recently used dropped first)."""


@dataclass(frozen=True, slots=True)
class PublicStep:
    """The public view after one decision (decision -1: the position before the first)."""

    index: int
    decision: int
    label: str
    view: Any
    think: Mapping[int, timedelta] = field(default_factory=dict)
    """Seat -> how long it took to answer this decision (from the stored decision)."""
    problems: Mapping[int, str] = field(default_factory=dict)
    """Seat -> the kind of strike its answer earned ("timeout", "illegal", ...), never the
    answer or the message quoting it."""
    to_act: tuple[int, ...] = ()
    """The seats that must decide next (none once the match is over)."""
    logged_at: datetime | None = None
    """When the decision was logged: the spectator delay runs from here."""


@dataclass
class _Replayed:
    """A match replayed so far: its public steps and the driver after the last of them."""

    driver: MatchDriver[Any, Any]
    steps: list[PublicStep] = field(default_factory=list)
    pending: list[DecisionRow] = field(default_factory=list)
    """Decisions read but still behind the spectator delay (shown without reading them again)."""
    finished: bool = False
    drawn: dict[int, bytes] = field(default_factory=dict)
    """Step index -> the step as the viewer's JSON (`step_json`), encoded; while it runs."""
    drawn_bytes: int = 0
    read_at: float = 0.0
    """`time.monotonic()` of the last read of its log."""


class MatchSteps:
    """Public steps of stored matches, cached; the spectator delay applies to running matches."""

    def __init__(
        self,
        db: Database,
        delay: timedelta,
        capacity: int = 64,
        drawn_bytes: int = DRAWN_BYTES,
    ) -> None:
        self.db = db
        self.delay = delay
        self.capacity = capacity
        self.max_drawn_bytes = drawn_bytes
        self._drawn_bytes = 0
        self._cache: OrderedDict[int, _Replayed] = OrderedDict()
        self._locks: dict[int, asyncio.Lock] = {}

    def shown(self, match_id: int, read_within: timedelta) -> int:
        """How many steps of a match this process has shown, if it read the match's log within
        `read_within`; else 0 (whoever looks next reads what is new)."""
        replayed = self._cache.get(match_id)
        if replayed is None or time.monotonic() - replayed.read_at > read_within.total_seconds():
            return 0
        return len(replayed.steps)

    async def steps(
        self, match: MatchRow, now: datetime | None = None, read: bool = True
    ) -> list[PublicStep]:
        """Every public step of `match` that spectators may see now; with `read` False, only
        the decisions already read are looked at (no database read) while the match runs."""
        lock = self._locks.setdefault(match.id, asyncio.Lock())
        async with lock:
            replayed = self._cache.get(match.id)
            fresh = replayed is None
            if replayed is None:
                rules = engines.get(match.game)
                driver: MatchDriver[Any, Any] = MatchDriver(
                    rules, match.seats, dict(match.options), match.seed
                )
                replayed = _Replayed(driver)
                setup = PublicStep(0, -1, "setup", driver.view(None), to_act=_deciding(driver))
                replayed.steps.append(setup)
            if not replayed.finished:
                if read or fresh or match.status in ENDED:
                    start = len(replayed.steps) - 1 + len(replayed.pending)
                    replayed.pending.extend(await self.db.decisions_from(match.id, start))
                    replayed.read_at = time.monotonic()
                at = now or datetime.now(UTC)
                if len(replayed.pending) <= REPLAY_IN_LINE:
                    self._advance(replayed, match, at)
                else:  # a long log (a first look at a long match): replayed off the event loop
                    await asyncio.to_thread(self._advance, replayed, match, at)
            self._cache[match.id] = replayed
            self._cache.move_to_end(match.id)
            while len(self._cache) > self.capacity:
                old, gone = self._cache.popitem(last=False)
                self._locks.pop(old, None)
                self._forget_drawn(gone)
            if replayed.finished:  # its pages are cached whole from now on (`Final`)
                self._forget_drawn(replayed)
            return list(replayed.steps)

    async def encoded(self, match: MatchRow, shown: Sequence[PublicStep]) -> list[bytes]:
        """The steps `shown` of `match` as the viewer's JSON, encoded. A running match's steps
        are drawn once and kept (bounded by bytes over all matches); the rest are drawn now,
        off the event loop when there are many."""
        names = [s.bot_name for s in match.seating]
        replayed = self._cache.get(match.id)
        kept = replayed.drawn if replayed is not None and not replayed.finished else {}
        missing = [s for s in shown if s.index not in kept]

        def draw() -> dict[int, bytes]:
            return {s.index: dumps(step_json(match.game, s, names)) for s in missing}

        new = draw() if len(missing) <= BOARDS_IN_LINE else await asyncio.to_thread(draw)
        if replayed is not None and not replayed.finished and new:
            for index, body in new.items():
                if index not in replayed.drawn:
                    replayed.drawn[index] = body
                    replayed.drawn_bytes += len(body)
                    self._drawn_bytes += len(body)
            self._trim_drawn(replayed)
        return [new[s.index] if s.index in new else kept[s.index] for s in shown]

    def _forget_drawn(self, replayed: _Replayed) -> None:
        self._drawn_bytes -= replayed.drawn_bytes
        replayed.drawn = {}
        replayed.drawn_bytes = 0

    def _trim_drawn(self, keep: _Replayed) -> None:
        """Drop the drawn steps of the least recently used matches while over the bound."""
        for replayed in list(self._cache.values()):
            if self._drawn_bytes <= self.max_drawn_bytes:
                return
            if replayed is not keep:
                self._forget_drawn(replayed)
        if self._drawn_bytes > self.max_drawn_bytes:
            self._forget_drawn(keep)

    def next_reveal(self, match_id: int) -> datetime | None:
        """When the oldest decision read but not yet shown of a match may be shown."""
        replayed = self._cache.get(match_id)
        if replayed is None or not replayed.pending or replayed.pending[0].created_at is None:
            return None
        return replayed.pending[0].created_at + self.delay

    def _advance(self, replayed: _Replayed, match: MatchRow, now: datetime) -> None:
        finished = match.status in ENDED
        driver = replayed.driver
        rules = driver.rules
        taken = 0
        for row in replayed.pending:
            if row.number < len(replayed.steps) - 1:
                taken += 1
                continue  # already shown (a read that raced another)
            hidden = row.created_at is None or not is_revealed(row.created_at, self.delay, now)
            if not finished and hidden:
                break
            decision = driver.decision
            if decision is None or decision.number != row.number:
                taken = len(replayed.pending)
                break  # a log that does not replay is shown as far as it does
            joint = {seat: rules.parse_action(seat, action) for seat, action in row.joint.items()}
            driver.play(joint)
            step = PublicStep(
                len(replayed.steps),
                row.number,
                row.label,
                driver.view(None),
                think=dict(row.elapsed),
                problems={seat: read_strike_note(note)[0] for seat, note in row.strikes.items()},
                to_act=_deciding(driver),
                logged_at=row.created_at,
            )
            replayed.steps.append(step)
            taken += 1
        del replayed.pending[:taken]
        replayed.finished = finished


def _deciding(driver: MatchDriver[Any, Any]) -> tuple[int, ...]:
    decision = driver.decision
    return () if decision is None else tuple(sorted(decision.seats))


def step_json(game: str, step: PublicStep, names: Sequence[str]) -> dict[str, Any]:
    """A public step as the viewer gets it: the board drawn, its events told, every seat's score,
    think time and problem, and who decides next."""
    return {
        "index": step.index,
        "decision": step.decision,
        "label": step.label,
        "board": boards.board(game, step.view, names),
        "events": story.sentences(game, step.view, names),
        "scores": story.scores(game, step.view),
        "think_ms": {
            str(seat): round(t.total_seconds() * 1000, 1) for seat, t in sorted(step.think.items())
        },
        "problems": {str(seat): kind for seat, kind in sorted(step.problems.items())},
        "to_act": list(step.to_act),
    }
