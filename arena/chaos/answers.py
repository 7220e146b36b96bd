"""Bots' own logs of their answers, and the check that every acknowledged one is in the log.

A soak bot appends one JSON object per line as things happen on its stream:

    {"e": "ask", "m": match, "d": decision, "s": seat}       a DecisionRequest arrived
    {"e": "answer", "m": .., "d": .., "s": .., "a": action}  it answered (wire JSON)
    {"e": "problem", "m": .., "d": ..}                       a Problem about that decision
    {"e": "end", "m": .., "aborted": bool}                   the match's MatchEnd
    {"e": "stream"}                                          it opens a new stream

The protocol has no explicit acknowledgement: an answer is acknowledged when the arena moved on
past its decision without complaint, i.e. the same bot was later asked, on the same stream, a
higher decision of the match or told the match finished (not aborted), and no Problem named that
decision. Such an answer must be the seat's action at that decision in the log. (A Problem is
not sent again after a reconnect, so an answer followed by a new stream proves nothing.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TextIO

from arena.chaos.checks import Conn, Context, invariant


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer a bot sent: where, and what."""

    match_id: int
    decision: int
    seat: int
    action: Any


class AnswerLog:
    """Appends a bot's stream events to its log file, one line each, flushed at once (a bot
    killed with SIGKILL loses nothing it wrote)."""

    def __init__(self, handle: TextIO) -> None:
        self.handle = handle

    def write(self, **event: Any) -> None:
        """Append one event."""
        self.handle.write(json.dumps(event, separators=(",", ":")) + "\n")
        self.handle.flush()


def events(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The events of a log; a torn last line (the bot was killed mid-write) is skipped."""
    for line in lines:
        try:
            yield json.loads(line)
        except ValueError:
            continue


def acknowledged(lines: Iterable[str]) -> list[Answer]:
    """The acknowledged answers of one bot's log."""
    pending: dict[tuple[int, int, int], Answer] = {}
    acked: dict[tuple[int, int, int], Answer] = {}
    troubled: set[tuple[int, int]] = set()
    for event in events(lines):
        kind, match_id = event.get("e"), int(event.get("m", 0))
        if kind == "answer":
            key = (match_id, int(event["d"]), int(event["s"]))
            pending[key] = Answer(*key, event["a"])
        elif kind == "problem":
            troubled.add((match_id, int(event.get("d", 0))))
        elif kind == "stream":
            # A Problem sent while the bot was reconnecting is not sent again: an answer
            # still unacknowledged when its stream ended can never be taken as acknowledged.
            pending.clear()
        elif kind in ("ask", "end"):
            later = int(event["d"]) if kind == "ask" else None
            for key in [k for k in pending if k[0] == match_id]:
                if later is None or key[1] < later:
                    answer = pending.pop(key)
                    if not event.get("aborted", False):
                        acked[key] = answer
    return [a for k, a in acked.items() if k[:2] not in troubled]


def canonical(value: Any) -> str:
    """`value` as JSON with sorted keys, for comparison."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@invariant("acknowledged-answers", always=False)
def acknowledged_answers(conn: Conn, context: Context) -> list[str]:
    """Every answer a bot sent and the arena acknowledged is its seat's action in the log."""
    acked: list[tuple[str, Answer]] = []
    for path in context.answer_logs:
        if path.exists():
            with path.open(errors="replace") as handle:
                acked += [(path.stem, answer) for answer in acknowledged(handle)]
    logged = {
        (match_id, number): (joint, at)
        for match_id, number, joint, at in conn.execute(
            "SELECT match_id, number, joint, created_at FROM decisions WHERE match_id = ANY(%s)",
            (sorted({answer.match_id for _, answer in acked}),),
        )
    }
    last: dict[int, int] = {}
    for match_id, number in logged:
        last[match_id] = max(number, last.get(match_id, -1))
    out = []
    for bot, answer in acked:
        joint, at = logged.get((answer.match_id, answer.decision), (None, None))
        if joint is None and answer.decision > last.get(answer.match_id, -1):
            # Logged after this check's snapshot, which the other checks took before the bots'
            # logs were read: a running match is judged at the next check (a finished one holds
            # every decision, so this never hides a loss).
            continue
        action = None if joint is None else joint.get(str(answer.seat))
        if joint is None or canonical(action) != canonical(answer.action):
            found = (
                f"{bot}: match {answer.match_id} decision {answer.decision} seat "
                f"{answer.seat}: answered {canonical(answer.action)}, logged "
                f"{'nothing' if joint is None else canonical(action)}"
            )
            if at is not None and _during_redis_outage(at, context):
                context.excused.append(f"{found} (logged at {at:%H:%M:%S}, Redis was down)")
            else:
                out.append(found)
    return out


def _during_redis_outage(at: datetime, context: Context) -> bool:
    """Whether a decision logged `at` may have lost messages in a Redis outage."""
    slack = context.excuse_relay_losses
    return slack is not None and any(
        began <= at <= ended + slack for began, ended in context.redis_outages
    )
