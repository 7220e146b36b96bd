"""One match on the referee: ask the seats, enforce clock and strikes, apply, persist, repeat."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from arena.ops import metrics
from arena.referee import answers, requests, spectate
from arena.referee.clock import Clock, SeatClock
from arena.referee.limits import clip
from arena.referee.sessions import Hub, Pending
from arena.referee.store import MatchStore
from arena.referee.watchers import Watcher
from arena.storage.botstats import strike_note
from arena.storage.errors import Conflict, NotFound, StorageError, Unavailable
from arena.storage.rows import DecisionRow, SeatResult
from arena.v1 import bot_pb2, common_pb2
from engines import (
    ActionError,
    Decision,
    HashRng,
    IllegalAction,
    InvalidAction,
    Outcome,
    Rules,
    StaleDecision,
    Termination,
)
from engines.replay import Record, replay, start

log = logging.getLogger(__name__)

PROBLEM_OF = {
    InvalidAction: bot_pb2.PROBLEM_KIND_INVALID_ACTION,
    IllegalAction: bot_pb2.PROBLEM_KIND_ILLEGAL_ACTION,
    StaleDecision: bot_pb2.PROBLEM_KIND_STALE_DECISION,
}
MAX_PROBLEM_CHARS = 300
DB_RETRY_MAX = 1.0
"""Longest pause between retries of a storage call: play resumes within it once Postgres is back."""
ABORT_REASON_CHARS = 300
"""The longest abort reason stored and sent (it quotes an exception's text)."""
ABORT_STORE_ATTEMPTS = 5


@dataclass
class SeatState:
    """A seat's bot and how it is doing."""

    bot_id: int
    bot_name: str
    clock: SeatClock
    strikes: int = 0
    forfeited: bool = False
    resigned: bool = False


@dataclass
class PublicStep:
    """What spectators see after a decision; the view is computed when first read."""

    decision: int
    label: str
    source: Callable[[], Any]
    """Builds the public view; called once, on first read, so nobody watching costs nothing."""
    at: float = field(default_factory=time.monotonic)
    _view: Any = field(default=None, init=False, repr=False)
    _built: bool = field(default=False, init=False, repr=False)

    @property
    def view(self) -> Any:
        """The public view (JSON form) after this decision."""
        if not self._built:
            self._view, self._built = self.source(), True
            self.source = _built
        return self._view


def _built() -> None:
    """Stands in for a step's source once its view is built, so the state can be freed."""


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
        connect_timeout: float = 10.0,
        resume: Record | None = None,
    ) -> None:
        self.match_id = match_id
        self.rules = rules
        self.options = options
        self.seed = seed
        self.clock = clock
        self.hub = hub
        self.store = store
        self.host = host
        self.connect_timeout = connect_timeout
        self.seats = [SeatState(b, n, SeatClock.start(clock)) for b, n in bots]
        self.state = start(rules, len(bots), options, seed)
        self.moves: list[dict[str, Any]] = []
        if resume is not None:
            self.state = replay(rules, resume)
            self.moves = [{str(s): a for s, a in m.items()} for m in resume.moves]
        self.steps: list[PublicStep] = [PublicStep(-1, "setup", self._public_view(self.state))]
        self.watchers: list[Watcher] = []
        self.outcome: Outcome | None = None
        self.done = asyncio.Event()
        self.on_finish: list[Callable[[MatchRunner], Any]] = []
        """Run after the outcome is stored and before MatchEnd goes out (e.g. rating)."""
        self.rating_changes: dict[int, float] = {}
        """Bot id -> Elo change, when the match was rated as it finished."""
        self._closed: dict[int, set[int]] = {}
        """Seat -> decisions it was asked and that are closed (answered, defaulted, timed out)."""
        self._resigning: list[asyncio.Task[None]] = []
        """Resignations being stored; each is durable before the next decision is logged."""
        self._strike_kinds: dict[tuple[int, int], str] = {}
        """(seat, decision) -> the kind of the strike given there, until the decision is logged."""

    # -- who is who ------------------------------------------------------------------------------
    @property
    def game(self) -> str:
        return self.rules.name

    def seats_of(self, bot_id: int) -> list[int]:
        """The seats `bot_id` holds in this match."""
        return [i for i, s in enumerate(self.seats) if s.bot_id == bot_id]

    def player_names(self) -> list[str]:
        return [s.bot_name for s in self.seats]

    def start_message(self, seat: int) -> bot_pb2.ArenaMessage:
        """The MatchStart of `seat`."""
        return requests.match_start(
            self.match_id, self.rules, seat, self.player_names(), self.options, self.clock
        )

    def restore(self, logged: Sequence[DecisionRow], resigned: Sequence[int] = ()) -> None:
        """Rebuild strikes, forfeits and clocks of a resumed match from its logged decisions,
        and the resignations stored on its seats."""
        for seat in resigned:
            self.seats[seat].resigned = self.seats[seat].forfeited = True
        for row in logged:
            for seat, taken in row.elapsed.items():
                self.seats[seat].clock.charge(taken)
            for seat in row.strikes:
                self.seats[seat].strikes += 1
        limit = self.clock.max_strikes
        for s in self.seats:
            s.forfeited = s.forfeited or bool(limit and s.strikes >= limit)

    # -- the loop --------------------------------------------------------------------------------
    async def run(self) -> Outcome:
        """Play the match to its end and store every step; returns the outcome."""
        began = time.monotonic()
        metrics.ACTIVE_MATCHES.labels(self.game).inc()
        try:
            await self._with_db_retry(
                "start_match", self.store.start_match, self.match_id, self.host
            )
            for seat, s in enumerate(self.seats):
                self.hub.send(s.bot_id, self.start_message(seat))
            await self._wait_for_bots()
            while (decision := self.rules.decision(self.state)) is not None:
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
        until = time.monotonic() + self.connect_timeout
        while time.monotonic() < until:
            if all(self.hub.is_connected(s.bot_id) for s in self.seats):
                return
            await asyncio.sleep(0.05)
        missing = [s.bot_name for s in self.seats if not self.hub.is_connected(s.bot_id)]
        log.warning("match %s starts without %s", self.match_id, ", ".join(missing))

    async def _play(self, decision: Decision) -> None:
        asked = [s for s in sorted(decision.seats) if not self.seats[s].forfeited]
        answers = await asyncio.gather(*(self._ask(seat, decision) for seat in asked))
        joint: dict[int, Any] = {}
        elapsed: dict[int, timedelta] = {}
        strikes: dict[int, str] = {}
        for seat, (action, taken, problem) in zip(asked, answers, strict=True):
            joint[seat], elapsed[seat] = action, timedelta(seconds=taken)
            if problem:
                kind = self._strike_kinds.pop((seat, decision.number), "unknown")
                strikes[seat] = strike_note(kind, problem)
        for seat in decision.seats - set(asked):
            joint[seat] = self.rules.legal_actions(self.state, seat).default()
            elapsed[seat] = timedelta(0)
        after = self.rules.apply(
            self.state, joint, HashRng.for_decision(self.seed, decision.number)
        )
        wire_joint = {s: self.rules.dump_action(a) for s, a in sorted(joint.items())}
        row = DecisionRow(
            self.match_id, decision.number, decision.label, wire_joint, elapsed, strikes
        )
        if self._resigning:  # a resumed match must not seat a resigned bot again
            resigning, self._resigning = self._resigning, []
            await asyncio.gather(*resigning)
        # Durable before the next request goes out: a crash loses no applied action.
        await self._with_db_retry("record_decision", self.store.record_decision, row)
        self.state = after
        self.moves.append({str(s): a for s, a in wire_joint.items()})
        metrics.DECISIONS.labels(self.game).inc()
        self._publish(PublicStep(decision.number, decision.label, self._public_view(after)))

    async def _ask(self, seat: int, decision: Decision) -> tuple[Any, float, str | None]:
        """One seat's action, time taken and problem: its default after a timeout or bad answer."""
        s = self.seats[seat]
        space = self.rules.legal_actions(self.state, seat)
        allowance = s.clock.allowance()
        request, listing = requests.decision_request(
            self.match_id,
            self.rules,
            self.state,
            decision,
            seat,
            allowance,
            s.clock.bank_left,
            form=self.hub.form_of(s.bot_id),
            space=space,
        )
        grace = self.clock.grace.total_seconds()
        pending = Pending(
            match_id=self.match_id,
            seat=seat,
            decision=decision.number,
            bot_id=s.bot_id,
            request=request,
            deadline=time.monotonic() + allowance.total_seconds() + grace,
        )
        self.hub.owe(pending)
        try:
            answered = await self._await_answer(pending)
        finally:
            self.hub.settle(pending)
            self._closed.setdefault(seat, set()).add(decision.number)
        taken = min(time.monotonic() - pending.sent_at, allowance.total_seconds())
        if s.resigned:
            return space.default(), 0.0, None
        if answered is None:
            metrics.TIMEOUTS.labels(self.game).inc()
            s.clock.charge(allowance)
            why = (
                f"no answer to decision {decision.number} within "
                f"{allowance.total_seconds():.3f}s; the default action was played"
            )
            self._strike(seat, decision.number, bot_pb2.PROBLEM_KIND_TIMEOUT, why)
            return space.default(), allowance.total_seconds(), why
        s.clock.charge(timedelta(seconds=taken))
        metrics.DECISION_ROUND_TRIP.labels(self.game).observe(taken)
        try:
            action = answers.to_action(
                self.rules, self.state, seat, decision.number, answered, listing
            )
        except ActionError as exc:
            kind = next(
                (k for t, k in PROBLEM_OF.items() if isinstance(exc, t)),
                bot_pb2.PROBLEM_KIND_ILLEGAL_ACTION,
            )
            metrics.BAD_ANSWERS.labels(self.game, bot_pb2.ProblemKind.Name(kind)[13:].lower()).inc()
            # The error may quote the answer: the bot and the log get a short prefix of it.
            why = f"{clip(str(exc), MAX_PROBLEM_CHARS)}; the default action was played"
            self._strike(seat, decision.number, kind, why)
            return space.default(), taken, why
        return action, taken, None

    async def _await_answer(self, pending: Pending) -> bot_pb2.Action | None:
        while not pending.answer.done():
            deadline = pending.deadline
            away_until = self.hub.reconnect_deadline(pending.bot_id)
            if away_until is not None:
                deadline = max(deadline, away_until)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            pending.changed.clear()
            changed = asyncio.ensure_future(pending.changed.wait())
            try:
                await asyncio.wait(
                    {pending.answer, changed},
                    timeout=remaining,
                    return_when=asyncio.FIRST_COMPLETED,
                )
            finally:
                changed.cancel()
        return pending.answer.result()

    def _strike(self, seat: int, number: int, kind: int, message: str) -> None:
        s = self.seats[seat]
        s.strikes += 1
        self._strike_kinds[(seat, number)] = bot_pb2.ProblemKind.Name(kind)[13:].lower()
        metrics.STRIKES.labels(self.game).inc()
        limit = self.clock.max_strikes
        log.info(
            "match %s seat %s (%s) strike %s: %s",
            self.match_id,
            seat,
            s.bot_name,
            s.strikes,
            message,
        )
        self.hub.send(
            s.bot_id,
            requests.problem(
                self.match_id,
                number,
                kind,
                message,
                strike=True,
                strikes=s.strikes,
                max_strikes=limit,
            ),
        )
        if limit and s.strikes >= limit and not s.forfeited:
            s.forfeited = True
            metrics.FORFEITS.labels(self.game).inc()
            self.hub.send(
                s.bot_id,
                requests.problem(
                    self.match_id,
                    number,
                    bot_pb2.PROBLEM_KIND_FORFEIT,
                    f"{s.strikes} strikes: seat {seat} forfeits and is ranked last; "
                    "the others finish the match",
                    strikes=s.strikes,
                    max_strikes=limit,
                ),
            )

    # -- answers from the bot stream ---------------------------------------------------------------
    def deliver(self, bot_id: int, action: bot_pb2.Action) -> bot_pb2.ArenaMessage | None:
        """Route an answer to the seat that owes it; return a Problem if it cannot be routed."""
        held = self.seats_of(bot_id)
        if action.HasField("seat") and action.seat not in held:
            return requests.problem(
                self.match_id,
                action.decision,
                bot_pb2.PROBLEM_KIND_NOT_YOUR_DECISION,
                f"seat {action.seat} of match {self.match_id} is not yours (you hold {held})",
            )
        seats = [action.seat] if action.HasField("seat") else held
        if any(action.decision in self._closed.get(s, ()) for s in seats):
            # A late answer to a decision already defaulted: the timeout was the strike.
            return requests.problem(
                self.match_id,
                action.decision,
                bot_pb2.PROBLEM_KIND_STALE_DECISION,
                f"decision {action.decision} of match {self.match_id} is already closed; "
                "the answer was ignored",
            )
        owed = [p for p in (self.hub.owed(self.match_id, s) for s in seats) if p is not None]
        if not owed:
            return requests.problem(
                self.match_id,
                action.decision,
                bot_pb2.PROBLEM_KIND_STALE_DECISION,
                f"no decision of yours is open in match {self.match_id} "
                f"(answer named decision {action.decision}); it was ignored",
            )
        target = next((p for p in owed if p.decision == action.decision), owed[0])
        if target.answer.done():
            return requests.problem(
                self.match_id,
                action.decision,
                bot_pb2.PROBLEM_KIND_STALE_DECISION,
                f"decision {target.decision} already has your answer; this one was ignored",
            )
        target.answer.set_result(action)
        return None

    def resign(self, bot_id: int, reason: str) -> None:
        """Every seat of `bot_id` gives up: ranked last, defaults from now on (stored, so that
        a resumed match keeps it)."""
        seats = [seat for seat in self.seats_of(bot_id) if not self.seats[seat].resigned]
        if seats:
            self._resigning.append(
                asyncio.ensure_future(
                    self._with_db_retry(
                        "resign_seats", self.store.resign_seats, self.match_id, seats
                    )
                )
            )
        for seat in seats:
            s = self.seats[seat]
            s.resigned = s.forfeited = True
            log.info("match %s seat %s resigned: %s", self.match_id, seat, reason or "no reason")
            pending = self.hub.owed(self.match_id, seat)
            if pending is not None and not pending.answer.done():
                pending.answer.set_result(bot_pb2.Action())

    def resume_messages(self, bot_id: int) -> list[bot_pb2.ArenaMessage]:
        """What a reconnecting bot gets: its MatchStarts and the requests it still owes."""
        out = [self.start_message(seat) for seat in self.seats_of(bot_id)]
        for seat in self.seats_of(bot_id):
            pending = self.hub.owed(self.match_id, seat)
            if pending is not None:
                grace = self.clock.grace.total_seconds()
                fresh = time.monotonic() + self.clock.per_decision.total_seconds() + grace
                pending.deadline = max(pending.deadline, fresh)
                left = timedelta(seconds=pending.deadline - grace - time.monotonic())
                requests.refresh_deadline(pending.request, left)
                out.append(bot_pb2.ArenaMessage(decision=pending.request))
        return out

    # -- the end ---------------------------------------------------------------------------------
    def final_outcome(self) -> Outcome:
        """The rules' outcome, with forfeited seats moved below every other seat."""
        outcome = self.rules.outcome(self.state)
        assert outcome is not None
        forfeited = {i for i, s in enumerate(self.seats) if s.forfeited}
        if not forfeited:
            return outcome
        keys = [
            (0.0 if i in forfeited else 1.0, -float(outcome.ranks[i]))
            for i in range(len(self.seats))
        ]
        adjusted = Outcome.from_keys(keys, outcome.scores, Termination.FORFEIT)
        return adjusted

    async def _finish(self) -> Outcome:
        outcome = self.final_outcome()
        self.outcome = outcome
        results = [
            SeatResult(
                rank=outcome.ranks[i],
                score=outcome.scores[i],
                strikes=s.strikes,
                forfeited=s.forfeited,
                time_used=s.clock.used,
            )
            for i, s in enumerate(self.seats)
        ]
        await self._with_db_retry(
            "finish_match", self.store.finish_match, self.match_id, outcome.termination, results
        )
        metrics.MATCHES_FINISHED.labels(self.game, outcome.termination.value).inc()
        for callback in self.on_finish:
            result = callback(self)
            if asyncio.iscoroutine(result):
                await result
        self._send_end(self.end_message(outcome))
        return outcome

    async def abort(self, reason: str) -> None:
        """End a match the referee cannot go on with: store it aborted, tell every seat, count it.

        Storage is tried a few times only: the seats hear `MatchEnd` even while the database is
        down (the match then stays `running` in storage). A match whose outcome was already
        stored (a failure after `finish_match`) is not aborted: its seats get the real MatchEnd.
        """
        if len(reason) > ABORT_REASON_CHARS:
            reason = reason[:ABORT_REASON_CHARS] + "..."
        for attempt in range(ABORT_STORE_ATTEMPTS):
            try:
                await self.store.abort_match(self.match_id, reason)
                break
            except (Conflict, NotFound) as exc:  # already ended or gone: nothing to store
                log.warning("match %s: not stored as aborted (%s)", self.match_id, exc)
                if self.outcome is not None:
                    self._send_end(self.end_message(self.outcome))
                    return
                break
            except StorageError as exc:
                metrics.DB_ERRORS.labels("abort_match").inc()
                log.error("match %s: storing the abort failed (%s)", self.match_id, exc)
                await asyncio.sleep(0.05 * 2**attempt)
        metrics.MATCHES_ABORTED.labels(self.game).inc()
        self._send_end(
            bot_pb2.MatchEnd(
                match_id=self.match_id,
                termination=common_pb2.TERMINATION_ABORTED,
                results=[
                    common_pb2.SeatResult(seat=i, bot=s.bot_name, strikes=s.strikes)
                    for i, s in enumerate(self.seats)
                ],
                reason=reason,
            )
        )

    def _send_end(self, end: bot_pb2.MatchEnd) -> None:
        for seat, s in enumerate(self.seats):
            message = bot_pb2.ArenaMessage()
            message.match_end.CopyFrom(end)
            message.match_end.seat = seat
            self.hub.send(s.bot_id, message)

    def end_message(self, outcome: Outcome) -> bot_pb2.MatchEnd:
        """The MatchEnd every seat receives (its own seat is filled in per bot)."""
        return bot_pb2.MatchEnd(
            match_id=self.match_id,
            termination=requests.TERMINATIONS[outcome.termination.value],  # type: ignore[arg-type]
            results=[
                common_pb2.SeatResult(
                    seat=i,
                    bot=s.bot_name,
                    rank=outcome.ranks[i],
                    score=outcome.scores[i],
                    strikes=s.strikes,
                    forfeited=s.forfeited,
                    rating_change=self.rating_changes.get(s.bot_id, 0.0),
                )
                for i, s in enumerate(self.seats)
            ],
        )

    # -- spectators and storage ------------------------------------------------------------------
    def _public_view(self, state: Any) -> Callable[[], Any]:
        """A builder of the public view of `state` (states are immutable, so it can wait)."""
        rules = self.rules
        return lambda: spectate.public_view(rules, state)

    def _publish(self, step: PublicStep) -> None:
        self.steps.append(step)
        for watcher in self.watchers:
            watcher.push(step)

    async def _with_db_retry(self, operation: str, call: Callable[..., Any], *args: Any) -> None:
        """Retry a storage call while the database is unavailable: the match pauses rather than
        lose a step. Any other storage error (a conflict, a missing row) will not go away by
        waiting: it propagates, and the runner's caller aborts the match."""
        delay = 0.05
        while True:
            try:
                await call(*args)
                return
            except Unavailable as exc:  # the database is down: wait and retry
                metrics.DB_ERRORS.labels(operation).inc()
                log.error(
                    "match %s: %s failed (%s); retrying in %.2fs",
                    self.match_id,
                    operation,
                    exc,
                    delay,
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, DB_RETRY_MAX)
            except StorageError:
                metrics.DB_ERRORS.labels(operation).inc()
                raise
