"""WatchMatch: a match's public steps, live behind the spectator delay or replayed from storage."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import grpc

import engines
from arena.referee import arguments, spectate
from arena.referee.app import Referee
from arena.referee.match_api import MatchApi
from arena.referee.public_forms import ENDED, match_event
from arena.referee.rpc import Context, fail
from arena.referee.watchers import Watcher, WatcherDropped
from arena.storage.errors import StorageError
from arena.v1 import arena_pb2
from engines import EngineError, Record
from engines.replay import steps

FOLLOW_POLL = timedelta(milliseconds=250)
"""How often the log of a match hosted by another referee is read for new steps."""


class WatchApi:
    """Streams what spectators may see of a match, live or from storage."""

    def __init__(self, referee: Referee, matches: MatchApi) -> None:
        self.referee = referee
        self.db = referee.db
        self.matches = matches

    async def WatchMatch(
        self, request: arena_pb2.WatchMatchRequest, context: Context
    ) -> AsyncIterator[arena_pb2.MatchEvent]:
        """The public view after each decision, then the match's final state."""
        try:
            arguments.positive_id("match_id", request.match_id)
            asked = (
                arguments.duration("delay", request.delay, arguments.WATCH_DELAY)
                if request.HasField("delay")
                else timedelta(0)
            )
        except arguments.InvalidArgument as exc:
            await fail(context, "WatchMatch", grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        # Spectators never see a running match sooner than the referee's spectator delay.
        delay = max(asked, self.referee.config.spectator_delay)
        runner = self.referee.runners.get(request.match_id)
        if runner is None:
            async for event in self.watch_stored(request.match_id, context, delay):
                yield event
            return
        # Bounded: a spectator that does not read (or waits out a long delay) is dropped.
        watcher = Watcher(runner.steps, self.referee.config.limits.watch_queue_steps)
        runner.watchers.append(watcher)
        try:
            while (step := await watcher.next()) is not None:
                wait = delay - timedelta(seconds=time.monotonic() - step.at)
                if wait > timedelta(0):
                    await watcher.pause(wait)
                yield match_event(
                    runner.match_id, runner.game, step.decision, step.label, step.view
                )
        except WatcherDropped as exc:
            await fail(context, "WatchMatch", grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
        finally:
            runner.watchers.remove(watcher)
        final = await self.matches.match(request.match_id, context, "WatchMatch")
        yield arena_pb2.MatchEvent(
            match_id=request.match_id, decision=len(runner.moves) - 1, label="end", final=final
        )

    async def watch_stored(
        self, match_id: int, context: Context, delay: timedelta
    ) -> AsyncIterator[arena_pb2.MatchEvent]:
        """The stored steps of a match not hosted here: of one still running (on another
        referee of the arena), followed from its log as it grows, each step shown once it was
        logged at least `delay` ago, until the match ends."""
        final, row = await self.matches.match_and_row(match_id, context, "WatchMatch")
        rules = engines.get(row.game)
        shown, last = 0, None
        while True:
            ended = row.status in ENDED
            try:
                record = await self._revealed(match_id, delay, ended)
            except StorageError as exc:
                await fail(context, "WatchMatch", grpc.StatusCode.UNAVAILABLE, str(exc))
            try:  # replayed from the start each time: a match is a few hundred steps
                new = list(itertools.islice(steps(rules, record), shown, None))
            except EngineError as exc:  # e.g. a match played under an older rules version
                await fail(
                    context,
                    "WatchMatch",
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"match {match_id} cannot be replayed here: {exc}",
                )
            for step in new:
                view = spectate.public_view(rules, step.after, step.events)
                last = step.decision.number
                yield match_event(match_id, rules.name, last, step.decision.label, view)
            shown += len(new)
            if ended:
                break
            await asyncio.sleep(FOLLOW_POLL.total_seconds())
            final, row = await self.matches.match_and_row(match_id, context, "WatchMatch")
        yield arena_pb2.MatchEvent(
            match_id=match_id, decision=last if last is not None else -1, label="end", final=final
        )

    async def _revealed(self, match_id: int, delay: timedelta, ended: bool) -> Record:
        """The match's record, cut to the decisions spectators may see now."""
        record = await self.db.record(match_id)
        if ended:
            return record
        now = datetime.now(UTC)
        logged = await self.db.decisions(match_id)
        revealed = sum(
            1
            for d in logged
            if d.created_at is not None and spectate.is_revealed(d.created_at, delay, now)
        )
        return dataclasses.replace(record, moves=record.moves[:revealed])
