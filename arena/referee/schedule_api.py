"""The RPCs of play that recurs without an operator: tournament schedules and rating ladders."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypeVar

import grpc
from google.protobuf import json_format

from arena.referee import arguments
from arena.referee.app import Referee
from arena.referee.public_forms import FORMATS, RATING_SYSTEMS, schedule_message
from arena.referee.rpc import UNKNOWN, Context, Refusal, answer, checked
from arena.storage.errors import Conflict, StorageError
from arena.tournament import ladder, schedules
from arena.v1 import arena_pb2
from engines import EngineError

T = TypeVar("T")

SCHEDULE_REFUSALS = (
    *UNKNOWN,
    Refusal((EngineError, ValueError), grpc.StatusCode.INVALID_ARGUMENT),
    Refusal(Conflict, grpc.StatusCode.ALREADY_EXISTS, "a schedule of that name exists"),
    Refusal(StorageError, grpc.StatusCode.UNAVAILABLE),
)
"""Why a schedule RPC fails, first match wins."""
LADDER_REFUSALS = (
    *UNKNOWN,
    Refusal((EngineError, ValueError), grpc.StatusCode.INVALID_ARGUMENT),
    Refusal(StorageError, grpc.StatusCode.UNAVAILABLE),
)
"""Why StartLadder and StopLadder fail."""


class ScheduleApi:
    """CreateSchedule, ListSchedules, PauseSchedule, DeleteSchedule, StartLadder, StopLadder."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.db = referee.db

    @checked
    async def CreateSchedule(
        self, request: arena_pb2.CreateScheduleRequest, context: Context
    ) -> arena_pb2.Schedule:
        """Create a schedule that opens a tournament every `every` (see permissions.RULES)."""
        arguments.text("name", request.name)
        arguments.text("game", request.game)
        for index, name in enumerate(request.bots):
            arguments.bot_name(f"bots[{index}]", name)
        arguments.integer("rounds", request.rounds, *arguments.SCHEDULE_ROUNDS)
        format_name = arguments.choice("format", request.format, FORMATS)
        system_name = arguments.choice("rating_system", request.rating_system, RATING_SYSTEMS)
        every = arguments.duration("every", request.every, arguments.SCHEDULE_EVERY)
        first = (
            arguments.timestamp("first_run", request.first_run)
            if request.HasField("first_run")
            else datetime.now(UTC)
        )
        clock = arguments.request_clock(self.referee.config.default_clock, request)

        async def create() -> arena_pb2.Schedule:
            schedule_id = await schedules.create_schedule(
                self.db,
                name=request.name,
                game=request.game,
                table_size=request.table_size,
                every=every,
                first_run=first,
                rounds=request.rounds,
                bot_names=list(request.bots) or None,
                format=format_name,
                rating_system=system_name,
                clock=clock,
                options=json_format.MessageToDict(request.options),
            )
            return await self.schedule(schedule_id)

        return await answer(context, "CreateSchedule", create, SCHEDULE_REFUSALS)

    async def ListSchedules(
        self, request: arena_pb2.ListSchedulesRequest, context: Context
    ) -> arena_pb2.ListSchedulesResponse:
        """Every schedule."""

        async def listing() -> arena_pb2.ListSchedulesResponse:
            return arena_pb2.ListSchedulesResponse(
                schedules=[schedule_message(s) for s in await schedules.list_schedules(self.db)]
            )

        return await answer(context, "ListSchedules", listing, SCHEDULE_REFUSALS)

    @checked
    async def PauseSchedule(
        self, request: arena_pb2.PauseScheduleRequest, context: Context
    ) -> arena_pb2.Schedule:
        """Pause a schedule, or resume it (see permissions.RULES)."""
        arguments.positive_id("schedule_id", request.schedule_id)

        async def change() -> arena_pb2.Schedule:
            await schedules.pause(self.db, request.schedule_id, paused=not request.resume)
            return await self.schedule(request.schedule_id)

        return await answer(context, "PauseSchedule", change, SCHEDULE_REFUSALS)

    @checked
    async def DeleteSchedule(
        self, request: arena_pb2.DeleteScheduleRequest, context: Context
    ) -> arena_pb2.DeleteScheduleResponse:
        """Delete a schedule; its past tournaments stay (see permissions.RULES)."""
        arguments.positive_id("schedule_id", request.schedule_id)

        async def remove() -> arena_pb2.DeleteScheduleResponse:
            await schedules.delete(self.db, request.schedule_id)
            return arena_pb2.DeleteScheduleResponse()

        return await answer(context, "DeleteSchedule", remove, SCHEDULE_REFUSALS)

    async def schedule(self, schedule_id: int) -> arena_pb2.Schedule:
        """The wire form of schedule `schedule_id`; `LookupError` if there is none."""
        found = [s for s in await schedules.list_schedules(self.db) if s.id == schedule_id]
        if not found:
            raise LookupError(f"no schedule {schedule_id}")
        return schedule_message(found[0])

    @checked
    async def StartLadder(
        self, request: arena_pb2.StartLadderRequest, context: Context
    ) -> arena_pb2.Ladder:
        """Start (or reconfigure) the rating ladder of a game (see permissions.RULES)."""
        arguments.text("game", request.game)
        concurrency = (
            arguments.integer("concurrency", request.concurrency, *arguments.LADDER_CONCURRENCY)
            or 1
        )
        clock = arguments.request_clock(self.referee.config.default_clock, request)

        async def start() -> arena_pb2.Ladder:
            await ladder.start(self.db, request.game, request.table_size, concurrency, clock)
            return arena_pb2.Ladder(
                game=request.game,
                table_size=request.table_size,
                concurrency=concurrency,
                active=True,
            )

        return await answer(context, "StartLadder", start, LADDER_REFUSALS)

    @checked
    async def StopLadder(
        self, request: arena_pb2.StopLadderRequest, context: Context
    ) -> arena_pb2.Ladder:
        """Stop the rating ladder of a game (see permissions.RULES)."""
        arguments.text("game", request.game)

        async def stop() -> arena_pb2.Ladder:
            await ladder.stop(self.db, request.game)
            return arena_pb2.Ladder(game=request.game, active=False)

        return await answer(context, "StopLadder", stop, LADDER_REFUSALS)
