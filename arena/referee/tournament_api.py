"""The tournament RPCs of the public API: create, read and list tournaments, change entrants."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import grpc

from arena.referee import arguments
from arena.referee.app import Referee
from arena.referee.public_forms import (
    FORMATS,
    RATING_SYSTEMS,
    TOURNAMENT_STATUS_NAMES,
    tournament_message,
)
from arena.referee.rpc import (
    UNKNOWN,
    Context,
    Refusal,
    answer,
    checked,
    fail,
    game_options,
)
from arena.storage.db import Database
from arena.storage.errors import StorageError, Unavailable
from arena.storage.tournaments import TournamentRow
from arena.tournament import entries
from arena.tournament import rounds as tournaments
from arena.v1 import arena_pb2
from engines import EngineError

CREATE_REFUSALS = (
    *UNKNOWN,
    Refusal((EngineError, ValueError), grpc.StatusCode.INVALID_ARGUMENT),
    # Only Unavailable tells the client that a retry may succeed.
    Refusal(Unavailable, grpc.StatusCode.UNAVAILABLE),
    # Refused by a constraint: retrying cannot help.
    Refusal(StorageError, grpc.StatusCode.FAILED_PRECONDITION),
)
"""Why CreateTournament fails, first match wins."""
ENTRANT_REFUSALS = (
    Refusal(LookupError, grpc.StatusCode.NOT_FOUND),
    Refusal(ValueError, grpc.StatusCode.FAILED_PRECONDITION),
    Refusal(StorageError, grpc.StatusCode.UNAVAILABLE),
)
"""Why WithdrawEntrant and EnterEntrant fail."""

FieldChange = Callable[[Database, int, str], Awaitable[entries.FieldChange]]


class TournamentApi:
    """CreateTournament, GetTournament, ListTournaments, WithdrawEntrant and EnterEntrant."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.db = referee.db

    @checked
    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        """Create a tournament that starts at `starts_at` (see permissions.RULES)."""
        arguments.text("name", request.name, required=False)
        arguments.text("game", request.game)
        for index, name in enumerate(request.bots):
            arguments.bot_name(f"bots[{index}]", name)
        # 0 = chosen from the field size (tournament_setup.default_rounds)
        arguments.integer("rounds", request.rounds, 0, arguments.TOURNAMENT_ROUNDS[1])
        format_name = arguments.choice("format", request.format, FORMATS)
        system_name = arguments.choice("rating_system", request.rating_system, RATING_SYSTEMS)
        arguments.integer("forfeit_limit", request.forfeit_limit, *arguments.FORFEIT_LIMIT)

        async def create() -> arena_pb2.Tournament:
            clock = arguments.request_clock(self.referee.config.default_clock, request)
            starts = (
                arguments.timestamp("starts_at", request.starts_at)
                if request.HasField("starts_at")
                else None
            )
            tournament_id = await tournaments.create_tournament(
                self.db,
                name=request.name,
                game=request.game,
                bot_names=list(request.bots),
                table_size=request.table_size,
                rounds=request.rounds,
                clock=clock,
                options=game_options(request.options),
                starts_at=starts,
                seed=request.seed,
                format=format_name,
                rating_system=system_name,
                forfeit_limit=request.forfeit_limit or None,
            )
            return await self.tournament(tournament_id, context, "CreateTournament")

        return await answer(context, "CreateTournament", create, CREATE_REFUSALS)

    @checked
    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: Context
    ) -> arena_pb2.ListTournamentsResponse:
        """The newest tournaments, optionally by status, without standings."""
        status = None
        if request.status:
            status = arguments.choice("status", request.status, TOURNAMENT_STATUS_NAMES)
        limit = arguments.limit("limit", request.limit, 50, 500)
        try:
            rows = await tournaments.list_tournaments(self.db, status, limit)
            return arena_pb2.ListTournamentsResponse(
                tournaments=[await self.message(r, with_standings=False) for r in rows]
            )
        except StorageError as exc:
            await fail(context, "ListTournaments", grpc.StatusCode.UNAVAILABLE, str(exc))

    @checked
    async def GetTournament(
        self, request: arena_pb2.GetTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        """One tournament with its standings."""
        arguments.positive_id("tournament_id", request.tournament_id)
        return await self.tournament(request.tournament_id, context, "GetTournament")

    @checked
    async def WithdrawEntrant(
        self, request: arena_pb2.ChangeEntrantRequest, context: Context
    ) -> arena_pb2.EntrantChange:
        """Take a bot out of a tournament from the next round on (see permissions.RULES)."""
        return await self.change_entrant(request, context, "WithdrawEntrant", entries.withdraw)

    @checked
    async def EnterEntrant(
        self, request: arena_pb2.ChangeEntrantRequest, context: Context
    ) -> arena_pb2.EntrantChange:
        """Enter a bot in a running tournament from the next round on (see permissions.RULES)."""
        return await self.change_entrant(request, context, "EnterEntrant", entries.enter)

    async def change_entrant(
        self,
        request: arena_pb2.ChangeEntrantRequest,
        context: Context,
        method: str,
        change: FieldChange,
    ) -> arena_pb2.EntrantChange:
        """Apply `change` to the bot and tournament of `request`."""
        arguments.positive_id("tournament_id", request.tournament_id)
        arguments.bot_name("bot", request.bot)

        async def apply() -> arena_pb2.EntrantChange:
            done = await change(self.db, request.tournament_id, request.bot)
            return arena_pb2.EntrantChange(
                tournament_id=done.tournament_id, bot=done.bot, round_no=done.round_no
            )

        return await answer(context, method, apply, ENTRANT_REFUSALS)

    async def tournament(
        self, tournament_id: int, context: Context, method: str
    ) -> arena_pb2.Tournament:
        """The wire form of a tournament, or the call ended with NOT_FOUND or UNAVAILABLE."""
        try:
            info = await tournaments.tournament(self.db, tournament_id)
            if info is None:
                await fail(
                    context, method, grpc.StatusCode.NOT_FOUND, f"no tournament {tournament_id}"
                )
            return await self.message(info, with_standings=True)
        except StorageError as exc:
            await fail(context, method, grpc.StatusCode.UNAVAILABLE, str(exc))

    async def message(self, info: TournamentRow, with_standings: bool) -> arena_pb2.Tournament:
        """The wire form of a stored tournament, with its progress read from storage."""
        progress = await tournaments.progress(self.db, info.id)
        standings = await tournaments.standings_of(self.db, info.id) if with_standings else []
        return tournament_message(info, progress, standings)
