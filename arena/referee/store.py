"""What the referee needs from storage: a narrow seam so the runner's logic can be unit-tested."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.storage.rows import DecisionRow, SeatResult
from engines import Termination


class MatchStore(Protocol):
    """The storage calls a match runner makes (`arena.storage.Database` implements them)."""

    async def start_match(self, match_id: int, host: str, epoch: int = 0) -> None:
        """Mark the match running on `host`; refused (`Fenced`) unless `epoch` is its lease's."""

    async def mark_absent_at_start(
        self, match_id: int, seats: Sequence[int], epoch: int = 0
    ) -> None:
        """Note that `seats`' bots were not connected when the match started (fenced by
        `epoch`: a host that lost the lease writes nothing)."""

    async def record_decision(self, decision: DecisionRow) -> None:
        """Durably store one applied decision; returns once committed (refused with `Fenced`
        unless `decision.epoch` is the match's lease epoch)."""

    async def finish_match(
        self,
        match_id: int,
        termination: Termination,
        results: Sequence[SeatResult],
        epoch: int = 0,
    ) -> None:
        """Store the outcome and mark the match finished (fenced by `epoch`)."""

    async def abort_match(self, match_id: int, reason: str, epoch: int | None = None) -> None:
        """Mark a pending or running match aborted, keeping `reason` (fenced by `epoch` when
        given)."""

    async def resign_seats(self, match_id: int, seats: Sequence[int]) -> None:
        """Durably store that `seats` of a running match resigned."""
