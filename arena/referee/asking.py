"""Asking one seat for its answer to a decision: the request, the wait, the clock and strikes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from arena.ops import metrics
from arena.referee import answers, requests, routing, strikes
from arena.referee.clock import Clock
from arena.referee.seats import SeatState
from arena.referee.sessions import Hub, Pending
from arena.storage.botstats import strike_note
from arena.v1 import bot_pb2
from engines import ActionError, Decision, MatchDriver, Rules


class Asker:
    """Asks the seats of one match and hands each answer (or default) to its driver."""

    def __init__(
        self,
        match_id: int,
        rules: Rules[Any, Any, Any],
        clock: Clock,
        hub: Hub,
        seats: Sequence[SeatState],
        driver: MatchDriver[Any, Any],
    ) -> None:
        self.match_id = match_id
        self.rules = rules
        self.game = rules.name
        self.clock = clock
        self.hub = hub
        self.seats = seats
        self.driver = driver
        self.closed: dict[int, set[int]] = {}
        """Seat -> decisions it was asked and that are closed (answered, defaulted, timed out)."""
        # The labelled children, looked up once: `labels()` takes a lock and builds a key.
        self._round_trip = metrics.DECISION_ROUND_TRIP.labels(self.game)
        self._timeouts = metrics.TIMEOUTS.labels(self.game)
        self.decisions = metrics.DECISIONS.labels(self.game)
        """The match's decisions counter (the match counts each decision once it is stored)."""

    async def ask_all(
        self, seats: Sequence[int], decision: Decision
    ) -> tuple[dict[int, timedelta], dict[int, str]]:
        """`ask` each of `seats` at once; what each took, and the strike notes by seat."""
        if len(seats) == 1:  # the usual case: no task of its own, as gather would make
            asks = [await self.ask(seats[0], decision)]
        else:
            asks = list(await asyncio.gather(*(self.ask(seat, decision) for seat in seats)))
        elapsed = {
            seat: timedelta(seconds=taken) for seat, (taken, _) in zip(seats, asks, strict=True)
        }
        notes = {seat: note for seat, (_, note) in zip(seats, asks, strict=True) if note}
        return elapsed, notes

    async def ask(self, seat: int, decision: Decision) -> tuple[float, str | None]:
        """Take one seat's answer into the driver (its default after a timeout or bad answer);
        returns the time taken and the strike note, if any."""
        s, number = self.seats[seat], decision.number
        allowance = s.clock.allowance()
        request, listing = requests.decision_request(
            self.match_id,
            self.rules,
            self.driver.view(seat),
            decision,
            seat,
            allowance,
            s.clock.bank_left,
            form=self.hub.form_of(s.bot_id),
            space=self.driver.space(seat),
        )
        grace = self.clock.grace.total_seconds()
        deadline = time.monotonic() + allowance.total_seconds() + grace
        pending = Pending(self.match_id, seat, number, s.bot_id, request, deadline)
        self.hub.owe(pending)
        try:
            answered = await routing.await_answer(self.hub, pending)
        finally:
            self.hub.settle(pending)
            self.closed.setdefault(seat, set()).add(number)
        taken = min(time.monotonic() - pending.sent_at, allowance.total_seconds())
        if s.resigned:
            self.driver.answer(seat, number, self.driver.default(seat))
            return 0.0, None
        if answered is None:
            self._timeouts.inc()
            s.clock.charge(allowance)
            why = (
                f"no answer to decision {number} within "
                f"{allowance.total_seconds():.3f}s; the default action was played"
            )
            return allowance.total_seconds(), self._strike(
                seat, number, bot_pb2.PROBLEM_KIND_TIMEOUT, why
            )
        s.clock.charge(timedelta(seconds=taken))
        self._round_trip.observe(taken)
        try:
            answers.to_action(self.rules, self.driver.answer, seat, number, answered, listing)
        except ActionError as exc:
            kind, why = strikes.problem_of(self.game, exc)
            return taken, self._strike(seat, number, kind, why)
        return taken, None

    def _strike(self, seat: int, number: int, kind: int, why: str) -> str:
        """Strike `seat`, play its default, and return the note its decision row keeps."""
        strikes.strike(
            self.hub,
            self.match_id,
            self.game,
            seat,
            self.seats[seat],
            number,
            kind,
            why,
            self.clock.max_strikes,
        )
        self.driver.answer(seat, number, self.driver.default(seat))
        return strike_note(strikes.kind_name(kind), why)
