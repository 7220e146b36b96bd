"""The referee's news of a match's steps on Redis: a live web page learns of a step at once.

After each decision is durably logged, and when the match ends, its host publishes
`{"match": id, "decision": n, "end": bool}` on `arena:<namespace>:steps:<match id>`. The message
carries no view, action or seat: only that the log grew. Web processes read the new decisions from
Postgres themselves and apply the spectator delay. Whichever referee hosts the match (after a
takeover, the new host) publishes on the same channel.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.referee.watchers import Watcher

if TYPE_CHECKING:  # for annotations only: match.py imports watchers, as this module does
    from arena.referee.match import PublicStep

STEPS_PREFIX = "steps:"


def channel(namespace: str, match_id: int) -> str:
    """The channel the news of match `match_id` goes out on."""
    return f"arena:{namespace}:{STEPS_PREFIX}{match_id}"


def pattern(namespace: str) -> str:
    """The channel pattern of every match's news in the arena `namespace`."""
    return f"arena:{namespace}:{STEPS_PREFIX}*"


def encode(match_id: int, decision: int, end: bool = False) -> bytes:
    """The news that match `match_id` logged `decision` (or ended)."""
    return json.dumps({"match": match_id, "decision": decision, "end": end}).encode()


def decode(data: bytes | str) -> tuple[int, int, bool]:
    """(match id, decision, ended) of a news message; ValueError if it is not one."""
    try:
        news = json.loads(data)
        match_id, decision, end = news["match"], news["decision"], news["end"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"not step news: {exc}") from None
    if not isinstance(match_id, int) or not isinstance(decision, int) or not isinstance(end, bool):
        raise ValueError("not step news: wrong field types")
    return match_id, decision, end


class StepNews(Watcher):
    """Watches a running match for the web: publishes the news of each step as it is logged
    (runners push a step to their watchers once it is durable) and of the end. Never queues,
    so it is never dropped."""

    def __init__(self, match_id: int, publish: Callable[[int, int, bool], None]) -> None:
        super().__init__((), 0)
        self.match_id = match_id
        self.publish = publish

    def push(self, step: PublicStep) -> None:
        """Publish that `step` was logged."""
        self.publish(self.match_id, step.decision, False)

    def close(self) -> None:
        """Publish that the match ended (or left this referee: the web then reads its row)."""
        self.publish(self.match_id, -1, True)
