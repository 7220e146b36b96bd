"""One match on the referee: the network's side of a match the `MatchDriver` plays.

The driver holds the state, the open decision, the legal spaces, the answers (checked once) and
the events; the runner asks the seats over the bot stream, enforces clocks and strikes, and makes
each applied decision durable before the next request goes out.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from arena.ops import metrics
from arena.referee import requests, routing, seats
from arena.referee.asking import Asker
from arena.referee.clock import Clock, SeatClock
from arena.referee.persistence import store_abort, with_db_retry
from arena.referee.public_steps import PublicStep, public_view_of
from arena.referee.seats import SeatState
from arena.referee.sessions import Hub
from arena.referee.store import MatchStore
from arena.referee.watchers import Watcher
from arena.storage.rows import DecisionRow
from arena.v1 import bot_pb2
from engines import (
    Decision,
    Json,
    MatchDriver,
    Outcome,
    Record,
    Rules,
)
from engines.replay import replayed

__all__ = ["ABORT_REASON_CHARS", "MatchRunner", "PublicStep", "SeatState"]

log = logging.getLogger(__name__)

ABORT_REASON_CHARS = 300
"""The longest abort reason stored and sent (it quotes an exception's text)."""


class MatchRunner:
    """Runs one match to its end on this referee."""

    def __init__(
        self,
        *,
        match_id: int,
        rules: Rules[Any, Any, Any],
        options: dict[str, Any],
        seed: int,
        clock: Clock,
        bots: list[tuple[int, str]],
        hub: Hub,
        store: MatchStore,
        host: str,
        epoch: int = 0,
        connect_timeout: timedelta = timedelta(seconds=10),
        resume: Record | None = None,
    ) -> None:
        self.match_id = match_id
        self.rules = rules
        self.options = options
        self.clock = clock
        self.hub = hub
        self.store = store
        self.host = host
        self.epoch = epoch
        """The lease epoch this referee hosts the match under: every write is fenced by it."""
        self.lost = False  # another referee took the match over: stop without a word
        self.connect_timeout = connect_timeout
        self.seats = [SeatState(b, n, SeatClock.start(clock)) for b, n in bots]
        self.driver: MatchDriver[Any, Any] = (
            MatchDriver(rules, len(bots), options, seed)
            if resume is None
            else replayed(rules, resume)
        )
        self._logged = self.driver.number
        """Decisions durably stored (the driver applies one just before it is stored)."""
        # Built now: only the driver knows the setup's events (or a resumed match's last ones).
        opening = self.driver.view(None)
        self.steps: list[PublicStep] = [PublicStep(-1, "setup", lambda: opening)]
        self.watchers: list[Watcher] = []
        self.outcome: Outcome | None = None
        self.done = asyncio.Event()
        self.on_finish: list[Callable[[MatchRunner], Any]] = []
        """Run after the outcome is stored and before MatchEnd goes out (e.g. rating)."""
        self.rating_changes: dict[int, float] = {}
        """Bot id -> Elo change, when the match was rated as it finished."""
        self._asker = Asker(match_id, rules, clock, hub, self.seats, self.driver)
        self._resigning: list[asyncio.Task[None]] = []
        """Resignations being stored; each is durable before the next decision is logged."""

    # -- who is who ------------------------------------------------------------------------------
    @property
    def game(self) -> str:
        """The game's registry name."""
        return self.rules.name

    @property
    def moves(self) -> list[Mapping[int, Json]]:
        """The wire form of every decision stored so far."""
        return self.driver.moves[: self._logged]

    def seats_of(self, bot_id: int) -> list[int]:
        """The seats `bot_id` holds in this match."""
        return [i for i, s in enumerate(self.seats) if s.bot_id == bot_id]

    def start_message(self, seat: int) -> bot_pb2.ArenaMessage:
        """The MatchStart of `seat`."""
        players = [s.bot_name for s in self.seats]
        return requests.match_start(
            self.match_id, self.rules, seat, players, self.options, self.clock
        )

    def restore(self, logged: Sequence[DecisionRow], resigned: Sequence[int] = ()) -> None:
        """Rebuild a resumed match's strikes, forfeits, clocks and resignations from storage."""
        seats.restore(self.seats, logged, resigned, self.clock.max_strikes)

    # -- the loop --------------------------------------------------------------------------------
    async def run(self) -> Outcome:
        """Play the match to its end and store every step; returns the outcome."""
        began = time.monotonic()
        metrics.ACTIVE_MATCHES.labels(self.game).inc()
        try:
            start = (self.match_id, self.host, self.epoch)
            await self._stored("start_match", self.store.start_match, *start)
            for seat, s in enumerate(self.seats):
                self.hub.send(s.bot_id, self.start_message(seat))
            await self._wait_for_bots()
            for decision in self.driver.run():
                await self._play(decision)
            outcome = await self._finish()
        finally:
            metrics.ACTIVE_MATCHES.labels(self.game).dec()
            self.done.set()
            for watcher in self.watchers:
                watcher.close()
        metrics.MATCH_DURATION.labels(self.game).observe(time.monotonic() - began)
        return outcome

    async def _wait_for_bots(self) -> None:
        if await self.hub.wait_connected([s.bot_id for s in self.seats], self.connect_timeout):
            return
        absent = seats.absent(self.hub, self.seats)
        names = ", ".join(self.seats[i].bot_name for i in absent)
        log.warning("match %s starts without %s", self.match_id, names)
        # Kept for those who weigh results: a version test does not count such a match.
        mark = self.store.mark_absent_at_start
        await self._stored("mark_absent_at_start", mark, self.match_id, absent, self.epoch)

    async def _play(self, decision: Decision) -> None:
        asked = [s for s in sorted(decision.seats) if not self.seats[s].forfeited]
        elapsed, notes = await self._asker.ask_all(asked, decision)
        for seat in decision.seats - set(asked):
            self.driver.answer(seat, decision.number, self.driver.default(seat))
            elapsed[seat] = timedelta(0)
        move = self.driver.advance()
        number, label, wire = decision.number, decision.label, dict(move.wire)
        row = DecisionRow(self.match_id, number, label, wire, elapsed, notes, epoch=self.epoch)
        if self._resigning:  # a resumed match must not seat a resigned bot again
            resigning, self._resigning = self._resigning, []
            await asyncio.gather(*resigning)
        # Durable before the next request goes out: a crash loses no applied action.
        await self._stored("record_decision", self.store.record_decision, row)
        self._logged += 1
        self._asker.decisions.inc()
        view = public_view_of(self.rules, move.after, move.events)
        step = PublicStep(decision.number, decision.label, view)
        self.steps.append(step)
        for watcher in self.watchers:
            watcher.push(step)

    # -- answers from the bot stream ---------------------------------------------------------------
    def deliver(self, bot_id: int, action: bot_pb2.Action) -> bot_pb2.ArenaMessage | None:
        """Route an answer to the seat that owes it; return a Problem if it cannot be routed."""
        return routing.route(
            self.hub, self.match_id, self.seats_of(bot_id), self._asker.closed, action
        )

    def resign(self, bot_id: int, reason: str) -> None:
        """Every seat of `bot_id` gives up: ranked last, defaults from now on (stored, so that
        a resumed match keeps it)."""
        held = [seat for seat in self.seats_of(bot_id) if not self.seats[seat].resigned]
        if held:
            stored = self._stored("resign_seats", self.store.resign_seats, self.match_id, held)
            self._resigning.append(asyncio.ensure_future(stored))
        for seat in held:
            s = self.seats[seat]
            s.resigned = s.forfeited = True
            log.info("match %s seat %s resigned: %s", self.match_id, seat, reason or "no reason")
            pending = self.hub.owed(self.match_id, seat)
            if pending is not None and not pending.answer.done():
                pending.answer.set_result(bot_pb2.Action())

    def resume_messages(self, bot_id: int) -> list[bot_pb2.ArenaMessage]:
        """What a reconnecting bot gets: its MatchStarts and the requests it still owes."""
        held = self.seats_of(bot_id)
        starts = [self.start_message(seat) for seat in held]
        return starts + routing.resent_requests(self.hub, self.match_id, held, self.clock)

    # -- the end ---------------------------------------------------------------------------------
    def end_message(self, outcome: Outcome) -> bot_pb2.MatchEnd:
        """The MatchEnd every seat receives (its own seat is filled in per bot)."""
        return seats.end_message(self.match_id, outcome, self.seats, self.rating_changes)

    async def _finish(self) -> Outcome:
        played = self.driver.outcome()
        assert played is not None
        # The rules' outcome, with forfeited seats moved below every other seat.
        outcome = self.outcome = seats.ranked(played, self.seats)
        results = seats.results(outcome, self.seats)
        end = (outcome.termination, results, self.epoch)
        await self._stored("finish_match", self.store.finish_match, self.match_id, *end)
        metrics.MATCHES_FINISHED.labels(self.game, outcome.termination.value).inc()
        await call_each(self.on_finish, self)
        seats.send_end(self.hub, self.seats, self.end_message(outcome))
        return outcome

    async def abort(self, reason: str) -> None:
        """End a match the referee cannot go on with: store it aborted, tell every seat, count it.

        Storage is tried a few times only: the seats hear `MatchEnd` even while the database is
        down (the match then stays `running` in storage). A match whose outcome was already
        stored (a failure after `finish_match`) is not aborted: its seats get the real MatchEnd.
        """
        if self.lost:
            return
        reason = clipped(reason)
        stored = await store_abort(self.store, self.match_id, reason, self.epoch)
        if not stored and self.outcome is not None:
            seats.send_end(self.hub, self.seats, self.end_message(self.outcome))
            return
        metrics.MATCHES_ABORTED.labels(self.game).inc()
        seats.send_end(
            self.hub, self.seats, seats.aborted_message(self.match_id, self.seats, reason)
        )

    async def _stored(self, operation: str, call: Callable[..., Any], *args: Any) -> None:
        """Run a storage call, retried while the database is unavailable."""
        await with_db_retry(self.match_id, operation, call, *args)


def clipped(reason: str) -> str:
    """`reason`, cut to `ABORT_REASON_CHARS` (it may quote a long exception text)."""
    return reason if len(reason) <= ABORT_REASON_CHARS else reason[:ABORT_REASON_CHARS] + "..."


async def call_each(callbacks: Sequence[Callable[[MatchRunner], Any]], runner: MatchRunner) -> None:
    """Call each callback with `runner` in turn, awaiting those that are coroutines."""
    for callback in callbacks:
        result = callback(runner)
        if asyncio.iscoroutine(result):
            await result
