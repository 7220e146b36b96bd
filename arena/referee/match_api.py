"""The match RPCs of the public API: create, read, list and replay matches."""

from __future__ import annotations

import json
from collections.abc import Sequence

import grpc

from arena.referee import arguments
from arena.referee.app import NotConnected, Referee
from arena.referee.public_forms import ENDED, STATUS_NAMES, match_message
from arena.referee.rpc import (
    UNKNOWN,
    Context,
    Refusal,
    answer,
    checked,
    fail,
    game_options,
)
from arena.storage.errors import Conflict, NotFound, StorageError
from arena.storage.rows import MatchRow, MatchStatus
from arena.v1 import arena_pb2
from engines import EngineError, OptionsError, ReplayMismatch

CREATE_REFUSALS = (
    *UNKNOWN,
    # A stored match that cannot resume: it is now aborted.
    Refusal(ReplayMismatch, grpc.StatusCode.FAILED_PRECONDITION, "aborted: {}"),
    Refusal((OptionsError, EngineError, ValueError), grpc.StatusCode.INVALID_ARGUMENT),
    Refusal(NotFound, grpc.StatusCode.NOT_FOUND),
    Refusal(Conflict, grpc.StatusCode.FAILED_PRECONDITION),
    Refusal(NotConnected, grpc.StatusCode.FAILED_PRECONDITION),
    Refusal(StorageError, grpc.StatusCode.UNAVAILABLE),
)
"""Why CreateMatch fails, first match wins."""


class MatchApi:
    """CreateMatch, GetMatch, ListMatches and GetReplay, and the wire form of a match."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.db = referee.db

    @checked
    async def CreateMatch(
        self, request: arena_pb2.CreateMatchRequest, context: Context
    ) -> arena_pb2.Match:
        """Create a match and start playing it here (see permissions.RULES)."""
        check_match_request(request)

        async def create() -> arena_pb2.Match:
            clock = arguments.request_clock(self.referee.config.default_clock, request)
            timeout = (
                arguments.duration(
                    "connect_timeout", request.connect_timeout, arguments.CONNECT_TIMEOUT
                )
                if request.HasField("connect_timeout")
                else None
            )
            tournament = None
            if request.tournament_id:
                tournament = (request.tournament_id, request.round_no, request.table_no)
            match_id = await self.referee.create_match(
                request.game,
                list(request.bots),
                game_options(request.options),
                clock,
                request.seed,
                timeout,
                tournament,
                require_connected=request.require_connected,
            )
            return await self.match(match_id, context, "CreateMatch")

        return await answer(context, "CreateMatch", create, CREATE_REFUSALS)

    @checked
    async def GetMatch(
        self, request: arena_pb2.GetMatchRequest, context: Context
    ) -> arena_pb2.Match:
        """One match, with its seats and results."""
        return await self.match(request.match_id, context, "GetMatch")

    @checked
    async def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: Context
    ) -> arena_pb2.ListMatchesResponse:
        """The newest matches, optionally by status, game and bot."""
        limit = arguments.limit("limit", request.limit, 50, 500)
        status = None
        if request.status:
            status = MatchStatus(arguments.choice("status", request.status, STATUS_NAMES))
        if request.game:
            arguments.text("game", request.game)
        if request.bot:
            arguments.bot_name("bot", request.bot)
        try:
            bot_id = None
            if request.bot:
                bot = await self.db.bot_by_name(request.bot)
                if bot is None:
                    await fail(
                        context,
                        "ListMatches",
                        grpc.StatusCode.NOT_FOUND,
                        f"unknown bot {request.bot!r}",
                    )
                bot_id = bot.id
            rows = await self.db.list_matches(
                status=status, game=request.game or None, bot_id=bot_id, limit=limit
            )
            return arena_pb2.ListMatchesResponse(matches=await self.match_messages(rows))
        except StorageError as exc:
            await fail(context, "ListMatches", grpc.StatusCode.UNAVAILABLE, str(exc))

    @checked
    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: Context
    ) -> arena_pb2.Replay:
        """The record of a match that has ended: its seed and every seat's actions."""
        match, row = await self.match_and_row(request.match_id, context, "GetReplay")
        if row.status not in ENDED:
            # The seed and every seat's actions rebuild every private hand: public only at the end.
            await fail(
                context,
                "GetReplay",
                grpc.StatusCode.FAILED_PRECONDITION,
                f"match {request.match_id} is {row.status.value}; its replay (seed and every "
                "seat's actions) is published when it ends",
            )
        try:
            record = await self.db.record(request.match_id)
        except StorageError as exc:
            await fail(context, "GetReplay", grpc.StatusCode.UNAVAILABLE, str(exc))
        return arena_pb2.Replay(
            match_id=request.match_id, record_json=json.dumps(record.to_json()), match=match
        )

    async def match(self, match_id: int, context: Context, method: str) -> arena_pb2.Match:
        """The wire form of match `match_id`, or the call ended with NOT_FOUND or UNAVAILABLE."""
        return (await self.match_and_row(match_id, context, method))[0]

    async def match_and_row(
        self, match_id: int, context: Context, method: str
    ) -> tuple[arena_pb2.Match, MatchRow]:
        """The wire form and the stored row of match `match_id` (see `match`)."""
        arguments.positive_id("match_id", match_id)
        try:
            row = await self.db.match(match_id)
            if row is None:
                await fail(context, method, grpc.StatusCode.NOT_FOUND, f"no match {match_id}")
            return (await self.match_messages([row]))[0], row
        except StorageError as exc:
            await fail(context, method, grpc.StatusCode.UNAVAILABLE, str(exc))

    async def match_messages(self, rows: Sequence[MatchRow]) -> list[arena_pb2.Match]:
        """The wire forms of stored matches, with live progress for those that run here."""
        ids = [row.id for row in rows]
        counts = await self.db.decision_counts(ids)
        changes = await self.db.rating_changes(ids)
        out = []
        for row in rows:
            runner = self.referee.runners.get(row.id)
            decisions = max(counts[row.id], len(runner.moves) if runner else 0)
            out.append(match_message(row, decisions, changes))
        return out


def check_match_request(request: arena_pb2.CreateMatchRequest) -> None:
    """Check the names and table of a CreateMatch request (`InvalidArgument` if wrong)."""
    arguments.text("game", request.game)
    for index, name in enumerate(request.bots):
        arguments.bot_name(f"bots[{index}]", name)
    if request.tournament_id:
        arguments.positive_id("tournament_id", request.tournament_id)
        arguments.integer("round_no", request.round_no, 1, arguments.TOURNAMENT_ROUNDS[1])
        arguments.integer("table_no", request.table_no, 1, 10_000)
    elif request.round_no or request.table_no:
        raise arguments.InvalidArgument(
            "round_no", "round_no and table_no are set only with a tournament_id"
        )
