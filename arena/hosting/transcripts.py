"""A hosted bot's output filed under the matches it played: once a match has ended, its runner
saves the lines the bot wrote from the match's start to just after its end, for the owner's
private replay (which places each line at the decision it was written before)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta

from arena.hosting.output import Line
from arena.hosting.supervisor import Supervisor
from arena.storage.runners import Runners

MATCH_OUTPUT_CHARS = 64 * 1024
"""The most output saved per match and bot: its latest lines up to this many characters."""
AFTER_END = timedelta(seconds=1)
"""Lines arriving this long after a match's end still belong to it (the bot's MatchEnd output)."""
LOOKBACK = timedelta(minutes=1)
"""How long after its end a match's output may still be saved (a runner ticks every second)."""


def bounded(lines: list[Line], limit: int = MATCH_OUTPUT_CHARS) -> tuple[list[Line], int]:
    """The latest `lines` that fit in `limit` characters, and how many earlier ones were left."""
    kept: list[Line] = []
    size = 0
    for line in reversed(lines):
        size += len(line[1]) + 1
        if size > limit:
            break
        kept.append(line)
    kept.reverse()
    return kept, len(lines) - len(kept)


async def save_ended(runners: Runners, supervisors: Mapping[int, Supervisor]) -> int:
    """Save the output of each ended match of these bots not saved yet; how many were saved."""
    if not supervisors:
        return 0
    ended = await runners.ended_matches(sorted(supervisors), LOOKBACK)
    for match in ended:
        start = match.started_at.timestamp()
        end = (match.finished_at + AFTER_END).timestamp()
        kept, dropped = bounded(supervisors[match.bot_id].lines_between(start, end))
        await runners.save_output(match.match_id, match.bot_id, kept, dropped)
    return len(ended)
