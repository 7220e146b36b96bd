"""Which referee hosts a new match."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from arena.referee.registry import RefereeInfo


def place(bot_referees: Collection[str], live: Sequence[RefereeInfo], here: str) -> str:
    """The referee with the fewest running matches among those where the match's bots are
    connected, else the least loaded live one; `here` when no other referee is known to be
    live. A draining referee takes no new match. Ties go to `here` (no hop through Redis), then
    by name, so that the choice is deterministic."""
    open_ones = [r for r in live if not r.draining]
    if not open_ones:
        return here
    with_bots = [r for r in open_ones if r.name in bot_referees]
    pool = with_bots or open_ones
    return min(pool, key=lambda r: (r.hosted, r.name != here, r.name)).name
