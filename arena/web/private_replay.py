"""The private replay of a bot's own match: at each of its decisions, the exact view its seat was
sent, the action the arena applied for it, its think time and its Problem.

Only the bot's owner (or an admin) sees it, and only once the match has ended; the public viewer
never shows a seat's view. The view is the one the referee sent: the same engine driver, replayed
from the stored seed and action log, asked for that seat's view before each of its decisions.
The raw text of an answer is not stored: what is shown is the action it became (the default
action when it was struck). For a hosted bot, what its program wrote to stdout/stderr during the
match (saved by its runner) is shown at the decision it was written before: each line goes to the
seat's first decision stored after the line arrived.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import engines
from arena.storage.db import Database
from arena.storage.hosted import Hosted
from arena.storage.rows import MatchRow
from engines.api import Json
from engines.driver import MatchDriver


@dataclass(frozen=True, slots=True)
class SeatStep:
    """One decision of the seat: what it saw and what was played for it."""

    decision: int
    label: str
    view: str
    """The seat's view as sent (JSON, indented)."""
    action: str
    """The applied action (JSON)."""
    think_ms: float | None
    problem: str | None
    output: str = ""
    """What a hosted bot's program wrote while this decision was open (and before it)."""


@dataclass(frozen=True, slots=True)
class OutputTail:
    """A hosted bot's output the decisions do not hold: after its last one, and what was cut."""

    after: str
    """Lines written after the seat's last decision (its MatchEnd output, a crash)."""
    dropped: int
    """Earlier lines its runner did not keep (over the per-match bound)."""


async def seat_steps(db: Database, match: MatchRow, seat: int) -> list[SeatStep]:
    """Every decision of `seat` in the ended `match`, replayed from its record."""
    rules = engines.get(match.game)
    driver: MatchDriver[Any, Any] = MatchDriver(rules, match.seats, dict(match.options), match.seed)
    steps: list[SeatStep] = []
    for row in await db.decisions(match.id):
        decision = driver.decision
        if decision is None or decision.number != row.number:
            break  # a log that does not replay is shown as far as it does
        if seat in decision.seats:
            action: Json = row.joint.get(seat)
            elapsed = row.elapsed.get(seat)
            steps.append(
                SeatStep(
                    decision=row.number,
                    label=row.label,
                    view=json.dumps(driver.view(seat), indent=1, sort_keys=True),
                    action=json.dumps(action, sort_keys=True),
                    think_ms=None if elapsed is None else elapsed.total_seconds() * 1000,
                    problem=row.strikes.get(seat),
                )
            )
        driver.play_wire(row.joint)
    return steps


async def with_output(
    db: Database, match_id: int, bot_id: int, per_seat: dict[int, list[SeatStep]]
) -> tuple[dict[int, list[SeatStep]], OutputTail | None]:
    """`per_seat` with the hosted bot's saved output placed at its decisions; None as the tail
    when its runner saved none (the bot is not hosted, or it ended before the runner saw it)."""
    hosted = Hosted(db.pool)
    saved = await hosted.match_output(match_id, bot_id)
    if saved is None:
        return per_seat, None
    times = await hosted.decision_times(match_id)
    after: list[str] = []
    placed = {}
    for seat, steps in per_seat.items():
        placed[seat], after = place_output(steps, times, saved.lines)
    return placed, OutputTail("\n".join(after), saved.dropped)


def place_output(
    steps: list[SeatStep], times: Mapping[int, datetime], lines: list[tuple[float, str]]
) -> tuple[list[SeatStep], list[str]]:
    """Each line at the first of `steps` stored at or after its arrival; the lines after the
    last step apart."""
    marks = sorted(
        (times[s.decision].timestamp(), i) for i, s in enumerate(steps) if s.decision in times
    )
    keys = [at for at, _ in marks]
    texts: list[list[str]] = [[] for _ in steps]
    after: list[str] = []
    for at, text in lines:
        where = bisect.bisect_left(keys, at)
        (texts[marks[where][1]] if where < len(marks) else after).append(text)
    return [replace(s, output="\n".join(t)) for s, t in zip(steps, texts, strict=True)], after
