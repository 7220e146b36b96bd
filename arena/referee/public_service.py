"""ArenaService: the public and admin API, each RPC answered by the part that owns its concept."""

from __future__ import annotations

from collections.abc import AsyncIterator

from arena.referee.app import Referee
from arena.referee.bot_api import BotApi
from arena.referee.match_api import MatchApi
from arena.referee.referee_api import RefereeApi
from arena.referee.rpc import Context
from arena.referee.schedule_api import ScheduleApi
from arena.referee.tournament_api import TournamentApi
from arena.referee.versiontest_api import VersionTestApi
from arena.referee.watch_api import WatchApi
from arena.v1 import arena_pb2, arena_pb2_grpc


class PublicService(arena_pb2_grpc.ArenaServiceServicer):
    """The public and admin API: bots, matches, spectators, tournaments, schedules and ladders."""

    def __init__(self, referee: Referee) -> None:
        self.bots = BotApi(referee)
        self.matches = MatchApi(referee)
        self.watching = WatchApi(referee, self.matches)
        self.tournaments = TournamentApi(referee)
        self.schedules = ScheduleApi(referee)
        self.referees = RefereeApi(referee)
        self.versiontests = VersionTestApi(referee)

    async def RegisterBot(
        self, request: arena_pb2.RegisterBotRequest, context: Context
    ) -> arena_pb2.RegisterBotResponse:
        return await self.bots.RegisterBot(request, context)

    async def ListGames(
        self, request: arena_pb2.ListGamesRequest, context: Context
    ) -> arena_pb2.ListGamesResponse:
        return await self.bots.ListGames(request, context)

    async def ListBots(
        self, request: arena_pb2.ListBotsRequest, context: Context
    ) -> arena_pb2.ListBotsResponse:
        return await self.bots.ListBots(request, context)

    async def GetLeaderboard(
        self, request: arena_pb2.GetLeaderboardRequest, context: Context
    ) -> arena_pb2.Leaderboard:
        return await self.bots.GetLeaderboard(request, context)

    async def GetBotStats(
        self, request: arena_pb2.GetBotStatsRequest, context: Context
    ) -> arena_pb2.BotStats:
        return await self.bots.GetBotStats(request, context)

    async def CreateMatch(
        self, request: arena_pb2.CreateMatchRequest, context: Context
    ) -> arena_pb2.Match:
        return await self.matches.CreateMatch(request, context)

    async def GetMatch(
        self, request: arena_pb2.GetMatchRequest, context: Context
    ) -> arena_pb2.Match:
        return await self.matches.GetMatch(request, context)

    async def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: Context
    ) -> arena_pb2.ListMatchesResponse:
        return await self.matches.ListMatches(request, context)

    async def GetReplay(
        self, request: arena_pb2.GetReplayRequest, context: Context
    ) -> arena_pb2.Replay:
        return await self.matches.GetReplay(request, context)

    async def WatchMatch(
        self, request: arena_pb2.WatchMatchRequest, context: Context
    ) -> AsyncIterator[arena_pb2.MatchEvent]:
        # An async generator itself: grpc.aio streams only from an async generator function.
        async for event in self.watching.WatchMatch(request, context):
            yield event

    async def CreateTournament(
        self, request: arena_pb2.CreateTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        return await self.tournaments.CreateTournament(request, context)

    async def ListTournaments(
        self, request: arena_pb2.ListTournamentsRequest, context: Context
    ) -> arena_pb2.ListTournamentsResponse:
        return await self.tournaments.ListTournaments(request, context)

    async def GetTournament(
        self, request: arena_pb2.GetTournamentRequest, context: Context
    ) -> arena_pb2.Tournament:
        return await self.tournaments.GetTournament(request, context)

    async def WithdrawEntrant(
        self, request: arena_pb2.ChangeEntrantRequest, context: Context
    ) -> arena_pb2.EntrantChange:
        return await self.tournaments.WithdrawEntrant(request, context)

    async def EnterEntrant(
        self, request: arena_pb2.ChangeEntrantRequest, context: Context
    ) -> arena_pb2.EntrantChange:
        return await self.tournaments.EnterEntrant(request, context)

    async def CreateSchedule(
        self, request: arena_pb2.CreateScheduleRequest, context: Context
    ) -> arena_pb2.Schedule:
        return await self.schedules.CreateSchedule(request, context)

    async def ListSchedules(
        self, request: arena_pb2.ListSchedulesRequest, context: Context
    ) -> arena_pb2.ListSchedulesResponse:
        return await self.schedules.ListSchedules(request, context)

    async def PauseSchedule(
        self, request: arena_pb2.PauseScheduleRequest, context: Context
    ) -> arena_pb2.Schedule:
        return await self.schedules.PauseSchedule(request, context)

    async def DeleteSchedule(
        self, request: arena_pb2.DeleteScheduleRequest, context: Context
    ) -> arena_pb2.DeleteScheduleResponse:
        return await self.schedules.DeleteSchedule(request, context)

    async def StartLadder(
        self, request: arena_pb2.StartLadderRequest, context: Context
    ) -> arena_pb2.Ladder:
        return await self.schedules.StartLadder(request, context)

    async def StopLadder(
        self, request: arena_pb2.StopLadderRequest, context: Context
    ) -> arena_pb2.Ladder:
        return await self.schedules.StopLadder(request, context)

    async def ListReferees(
        self, request: arena_pb2.ListRefereesRequest, context: Context
    ) -> arena_pb2.ListRefereesResponse:
        return await self.referees.ListReferees(request, context)

    async def StartVersionTest(
        self, request: arena_pb2.StartVersionTestRequest, context: Context
    ) -> arena_pb2.VersionTest:
        return await self.versiontests.StartVersionTest(request, context)

    async def GetVersionTest(
        self, request: arena_pb2.GetVersionTestRequest, context: Context
    ) -> arena_pb2.VersionTest:
        return await self.versiontests.GetVersionTest(request, context)

    async def StopVersionTest(
        self, request: arena_pb2.StopVersionTestRequest, context: Context
    ) -> arena_pb2.VersionTest:
        return await self.versiontests.StopVersionTest(request, context)

    async def ListVersionTests(
        self, request: arena_pb2.ListVersionTestsRequest, context: Context
    ) -> arena_pb2.ListVersionTestsResponse:
        return await self.versiontests.ListVersionTests(request, context)
