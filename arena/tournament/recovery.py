"""The watchdog's view: running tournaments whose current round needs a nudge after a lost task."""

from __future__ import annotations

import enum
import os
import time
from dataclasses import dataclass

from arena.storage import Database
from arena.storage.tournaments import round_rows, running_tournament_ids
from arena.tournament.tables import tables

# Rounds whose tables have been waiting this long since their last dispatch are dispatched again.
REDISPATCH_AFTER = float(os.environ.get("ARENA_REDISPATCH_AFTER", "60"))


class Nudge(enum.StrEnum):
    """What a stalled round needs."""

    CLOSE = "close"
    """Every table is decided, the round is still open."""
    ADVANCE = "advance"
    """The round closed but the next was never dispatched."""
    DISPATCH = "dispatch"
    """Tables waited too long since their dispatch, or an aborted table awaits its replay."""


@dataclass(frozen=True, slots=True)
class Repair:
    """What the watchdog found for one running tournament."""

    tournament_id: int
    round_no: int
    action: Nudge


async def stalled(db: Database, now: float | None = None) -> list[Repair]:
    """Running tournaments whose current round needs a nudge (after a lost task)."""
    now = time.time() if now is None else now
    out = []
    for tournament_id in await running_tournament_ids(db):
        rows = await round_rows(db, tournament_id)
        if not rows:
            out.append(Repair(tournament_id, 1, Nudge.DISPATCH))
            continue
        last = rows[-1]
        if last.is_finished:
            out.append(Repair(tournament_id, last.round_no, Nudge.ADVANCE))
            continue
        current = await tables(db, tournament_id, last.round_no)
        if all(t.is_over for t in current):
            out.append(Repair(tournament_id, last.round_no, Nudge.CLOSE))
            continue
        dispatched = last.dispatched_at or last.started_at
        # An aborted table whose task died before replaying it need not wait for the timeout.
        replays = any(t.needs_replay for t in current)
        if replays or now - dispatched.timestamp() > REDISPATCH_AFTER:
            out.append(Repair(tournament_id, last.round_no, Nudge.DISPATCH))
    return out
