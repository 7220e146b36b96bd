"""What a bot author sees while `arena bot run` plays: a line per match start and end, every
Problem with its reason, and a periodic summary of matches, wins, timeouts and think time.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TextIO

from arena.v1 import bot_pb2, common_pb2

SUMMARY_EVERY = timedelta(minutes=1)


@dataclass
class Tally:
    """Running totals for the summary line."""

    started: int = 0
    finished: int = 0
    wins: int = 0
    forfeits: int = 0
    timeouts: int = 0
    strikes: int = 0
    rating_change: float = 0.0
    think: list[float] = field(default_factory=list)
    """Seconds from each decision request to the answer, this process's side only."""


def termination_name(value: int) -> str:
    """`normal`, `forfeit`, ... for a Termination enum value."""
    return common_pb2.Termination.Name(value).removeprefix("TERMINATION_").lower()  # type: ignore[arg-type]


def problem_name(value: int) -> str:
    """`timeout`, `illegal action`, ... for a ProblemKind enum value."""
    name = bot_pb2.ProblemKind.Name(value).removeprefix("PROBLEM_KIND_")  # type: ignore[arg-type]
    return name.lower().replace("_", " ")


class BotReport:
    """Readable lines about one bot process's matches, written to `out`."""

    def __init__(
        self,
        out: TextIO,
        every: timedelta = SUMMARY_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        self.every = every.total_seconds()
        self.clock = clock
        self.tally = Tally()
        self.players: dict[int, bot_pb2.MatchStart] = {}
        self._last_summary = clock()

    def _print(self, line: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        print(f"{stamp} {line}", file=self.out, flush=True)

    def connected(self, bot_name: str, address: str, active: int) -> None:
        """The stream is open."""
        more = f", back in {active} running match(es)" if active else ""
        self._print(f"connected to {address} as {bot_name}{more}; waiting for matches")

    def match_start(self, start: bot_pb2.MatchStart) -> None:
        """A match began (or is resumed after a reconnect)."""
        if start.match_id in self.players:
            return
        self.players[start.match_id] = start
        self.tally.started += 1
        others = [p for i, p in enumerate(start.players) if i != start.seat]
        self._print(
            f"match {start.match_id} started: {start.game}, seat {start.seat} of {start.seats}, "
            f"against {', '.join(others) or 'nobody'}"
        )

    def answered(self, think_seconds: float) -> None:
        """One decision was answered after `think_seconds`."""
        self.tally.think.append(think_seconds)
        self.maybe_summary()

    def problem(self, problem: bot_pb2.Problem) -> None:
        """The arena reported a Problem."""
        if problem.kind == bot_pb2.PROBLEM_KIND_TIMEOUT:
            self.tally.timeouts += 1
        if problem.kind == bot_pb2.PROBLEM_KIND_FORFEIT:
            self.tally.forfeits += 1
        if problem.strike:
            self.tally.strikes += 1
        where = f"match {problem.match_id}" if problem.match_id else "stream"
        if problem.decision:
            where += f" decision {problem.decision}"
        strike = ""
        if problem.strike:
            limit = f"/{problem.max_strikes}" if problem.max_strikes else ""
            strike = f" (strike {problem.strikes}{limit})"
        self._print(f"PROBLEM {where}: {problem_name(problem.kind)}{strike}: {problem.message}")

    def match_end(self, end: bot_pb2.MatchEnd) -> None:
        """A match ended."""
        start = self.players.pop(end.match_id, None)
        self.tally.finished += 1
        mine = next((r for r in end.results if r.seat == end.seat), None)
        game = start.game if start else "?"
        if mine is None:
            self._print(f"match {end.match_id} ended ({termination_name(end.termination)})")
            return
        if mine.rank == 1:
            self.tally.wins += 1
        self.tally.rating_change += mine.rating_change
        rating = f", rating {mine.rating_change:+.1f}" if mine.rating_change else ""
        forfeit = ", forfeited" if mine.forfeited else ""
        self._print(
            f"match {end.match_id} ended: {game}, rank {mine.rank} of {len(end.results)}, "
            f"score {mine.score:g}{rating}{forfeit} ({termination_name(end.termination)})"
        )
        self.maybe_summary()

    def summary_line(self) -> str:
        """Matches, wins, timeouts, strikes and think time so far."""
        t = self.tally
        think = ""
        if t.think:
            mean = statistics.fmean(t.think) * 1000
            think = f", think time mean {mean:.0f} ms max {max(t.think) * 1000:.0f} ms"
        return (
            f"summary: {t.finished} finished ({t.started - t.finished} running), {t.wins} won, "
            f"{t.timeouts} timeouts, {t.strikes} strikes, {t.forfeits} forfeits, "
            f"rating {t.rating_change:+.1f}{think}"
        )

    def maybe_summary(self) -> None:
        """Print the summary when `every` has passed since the last one."""
        now = self.clock()
        if now - self._last_summary >= self.every:
            self._last_summary = now
            self._print(self.summary_line())

    def stopped(self, reason: str) -> None:
        """The process is stopping."""
        self._print(f"{reason}; {self.summary_line()}")
