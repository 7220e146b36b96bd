"""The watchdog's view: running tournaments whose current round needs a nudge after a lost task."""

from __future__ import annotations

import enum
import os
import time
from dataclasses import dataclass

from arena.storage import Database
from arena.storage.tournaments import round_rows, running_tournament_ids
from arena.tournament.tables import tables

# Rounds with a table still unhosted this long after their last dispatch are dispatched again.
REDISPATCH_AFTER = float(os.environ.get("ARENA_REDISPATCH_AFTER", "60"))
# Rounds paired but never dispatched are dispatched this long after their pairing: the call that
# closed the round before paired it, then failed before it could dispatch (Postgres or Redis went
# away), and only that call dispatches the next round.
UNSENT_AFTER = float(os.environ.get("ARENA_UNSENT_AFTER", "15"))


class Nudge(enum.StrEnum):
    """What a stalled round needs."""

    CLOSE = "close"
    """Every table is decided, the round is still open."""
    ADVANCE = "advance"
    """The round closed but the next was never dispatched."""
    DISPATCH = "dispatch"
    """A table still has no match long after its dispatch (or after its pairing, when the round
    was never dispatched), or an aborted table awaits its replay."""


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
        # A table whose match exists is decided by the referees whatever became of its task,
        # and CLOSE follows once every table is: dispatching it again only adds a task that
        # holds a worker slot for as long as the match plays. Round after slow round, such
        # tasks filled the workers and other tournaments' rounds waited minutes to close
        # (found by the chaos soak, bench/chaos.py --minutes 30 --seed 26).
        unhosted = any(t.match_id is None for t in current if not t.is_over)
        waited = now - dispatched.timestamp()
        limit = UNSENT_AFTER if last.dispatched_at is None else REDISPATCH_AFTER
        if replays or (unhosted and waited > limit):
            out.append(Repair(tournament_id, last.round_no, Nudge.DISPATCH))
    return out
