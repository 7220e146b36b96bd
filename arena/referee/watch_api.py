"""WatchMatch: a match's public steps, live behind the spectator delay or replayed from storage."""

from __future__ import annotations

import dataclasses
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
from engines import EngineError
from engines.replay import steps


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
        """The stored steps of a match not hosted here; of one still running, only those
        logged at least `delay` ago."""
        final, row = await self.matches.match_and_row(match_id, context, "WatchMatch")
        try:
            record = await self.db.record(match_id)
            if row.status not in ENDED:
                now = datetime.now(UTC)
                logged = await self.db.decisions(match_id)
                shown = sum(
                    1
                    for d in logged
                    if d.created_at is not None and spectate.is_revealed(d.created_at, delay, now)
                )
                record = dataclasses.replace(record, moves=record.moves[:shown])
        except StorageError as exc:
            await fail(context, "WatchMatch", grpc.StatusCode.UNAVAILABLE, str(exc))
        rules = engines.get(record.game)
        last = None
        replayed = steps(rules, record)
        while True:
            try:
                step = next(replayed, None)
            except EngineError as exc:  # e.g. a match played under an older rules version
                await fail(
                    context,
                    "WatchMatch",
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"match {match_id} cannot be replayed here: {exc}",
                )
            if step is None:
                break
            view = spectate.public_view(rules, step.after, step.events)
            last = step.decision.number
            yield match_event(match_id, rules.name, step.decision.number, step.decision.label, view)
        yield arena_pb2.MatchEvent(
            match_id=match_id, decision=last if last is not None else -1, label="end", final=final
        )
