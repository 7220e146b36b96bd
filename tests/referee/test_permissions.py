"""The permission table: every RPC has a rule, and every RPC is run as each kind of caller.

The matrix is written out here, not derived from `permissions.RULES`, so a rule changed by
mistake fails it. "Allowed" means the door let the call through: whatever the RPC then answers
(often INVALID_ARGUMENT or NOT_FOUND, as the requests are chosen not to change much), it is not
UNAUTHENTICATED or PERMISSION_DENIED. A refused call must be UNAUTHENTICATED for a caller
without a key and PERMISSION_DENIED for a caller with one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from arena.referee.permissions import GUARDED_SERVICES, RULES
from arena.v1 import account_pb2, account_pb2_grpc, arena_pb2, arena_pb2_grpc, bot_pb2
from tests.referee.harness import ADMIN as ADMIN_TOKEN
from tests.referee.harness import ADMIN_METADATA, running_referee

pytestmark = pytest.mark.integration

ANON, BOT, AUTHOR, OTHER_AUTHOR = "anonymous", "bot", "author", "other author"
ORGANISER, OTHER_ORGANISER, ADMIN = "organiser", "other organiser", "admin"
ORDER = (ANON, BOT, OTHER_AUTHOR, OTHER_ORGANISER, AUTHOR, ORGANISER, ADMIN)
"""Refused callers first: a refused call changes nothing, so the owners' calls (which may
delete or rotate what they own) come after everyone else has tried."""
EVERYONE = frozenset(ORDER)
ACCOUNTS = frozenset({AUTHOR, OTHER_AUTHOR, ORGANISER, OTHER_ORGANISER, ADMIN})
ORGANISERS = frozenset({ORGANISER, OTHER_ORGANISER, ADMIN})
COMPETITION_OWNER = frozenset({ORGANISER, ADMIN})
BOT_OWNER = frozenset({AUTHOR, ADMIN})
ADMINS = frozenset({ADMIN})

LADDER_GAME = "crossing"


def _requests(
    tournament_id: int, schedule_id: int, test_id: int = 1
) -> dict[str, tuple[Message, frozenset[str]]]:
    """RPC name -> (the request every caller sends, who is let through)."""
    a, acc = arena_pb2, account_pb2
    return {
        "RegisterBot": (a.RegisterBotRequest(name="bad name!"), EVERYONE),
        "ListGames": (a.ListGamesRequest(), EVERYONE),
        "CreateMatch": (a.CreateMatchRequest(game="nogame", bots=["x"]), ORGANISERS),
        "GetMatch": (a.GetMatchRequest(match_id=999), EVERYONE),
        "ListMatches": (a.ListMatchesRequest(), EVERYONE),
        "WatchMatch": (a.WatchMatchRequest(match_id=999), EVERYONE),
        "GetReplay": (a.GetReplayRequest(match_id=999), EVERYONE),
        "ListBots": (a.ListBotsRequest(), EVERYONE),
        "CreateTournament": (a.CreateTournamentRequest(game="nogame"), ORGANISERS),
        "ListTournaments": (a.ListTournamentsRequest(), EVERYONE),
        "GetTournament": (a.GetTournamentRequest(tournament_id=tournament_id), EVERYONE),
        "GetLeaderboard": (a.GetLeaderboardRequest(game="hart"), EVERYONE),
        "GetBotStats": (a.GetBotStatsRequest(bot="target"), EVERYONE),
        "WithdrawEntrant": (
            a.ChangeEntrantRequest(tournament_id=tournament_id, bot="ghost"),
            COMPETITION_OWNER,
        ),
        "EnterEntrant": (
            a.ChangeEntrantRequest(tournament_id=tournament_id, bot="ghost"),
            COMPETITION_OWNER,
        ),
        "CreateSchedule": (a.CreateScheduleRequest(name=""), ORGANISERS),
        "ListSchedules": (a.ListSchedulesRequest(), EVERYONE),
        "PauseSchedule": (
            a.PauseScheduleRequest(schedule_id=schedule_id),
            COMPETITION_OWNER,
        ),
        "DeleteSchedule": (a.DeleteScheduleRequest(schedule_id=schedule_id), COMPETITION_OWNER),
        "StartLadder": (
            a.StartLadderRequest(game=LADDER_GAME, table_size=2, concurrency=-1),
            COMPETITION_OWNER,
        ),
        "StopLadder": (a.StopLadderRequest(game=LADDER_GAME), COMPETITION_OWNER),
        "ListReferees": (a.ListRefereesRequest(), EVERYONE),
        # The author owns both sides (a version of one, the other); organisers own neither but
        # may start and stop any test (issue 29: "organiser or the owner of both sides").
        "StartVersionTest": (
            a.StartVersionTestRequest(game="nogame", candidate="target@v1", baseline="player"),
            BOT_OWNER | ORGANISERS,
        ),
        "StopVersionTest": (a.StopVersionTestRequest(test_id=test_id), BOT_OWNER | ORGANISERS),
        "GetVersionTest": (a.GetVersionTestRequest(test_id=999), EVERYONE),
        "ListVersionTests": (a.ListVersionTestsRequest(), EVERYONE),
        "CreateAccount": (acc.CreateAccountRequest(name="bad name!"), EVERYONE),
        "Login": (acc.LoginRequest(name=""), EVERYONE),
        "WhoAmI": (acc.WhoAmIRequest(), ACCOUNTS),
        "CreateKey": (acc.CreateKeyRequest(name="matrix"), ACCOUNTS),
        "ListKeys": (acc.ListKeysRequest(), ACCOUNTS),
        "RevokeKey": (acc.RevokeKeyRequest(name="no-such-key"), ACCOUNTS),
        "SetRole": (acc.SetRoleRequest(name="nobody", role=acc.ROLE_AUTHOR), ADMINS),
        "RotateBotToken": (acc.BotRef(bot="target"), BOT_OWNER),
        "RetireBot": (acc.BotRef(bot="target"), BOT_OWNER),
        "CreateBotVersion": (
            acc.CreateBotVersionRequest(bot="target", label="bad label!"),
            BOT_OWNER,
        ),
        "UploadArchivePart": (
            acc.ArchivePart(bot="target", sha256=b"\0" * 32, offset=7, data=b"x"),
            BOT_OWNER,
        ),
        "UploadBotVersion": (
            acc.UploadBotVersionRequest(bot="target", label="bad label!"),
            BOT_OWNER,
        ),
        "ListBotVersions": (acc.BotRef(bot="target"), EVERYONE),
        "SetBotAlwaysOn": (acc.SetBotAlwaysOnRequest(bot="target", always_on=False), BOT_OWNER),
        "ListAudit": (acc.ListAuditRequest(), ACCOUNTS),
    }


def _methods(module: Any, service: str) -> set[str]:
    descriptor = module.DESCRIPTOR.services_by_name[service]
    return {f"/{descriptor.full_name}/{m.name}" for m in descriptor.methods}


ALL_METHODS = (
    _methods(arena_pb2, "ArenaService")
    | _methods(account_pb2, "AccountService")
    | _methods(bot_pb2, "BotService")
)


def test_every_rpc_has_exactly_one_permission_rule() -> None:
    missing = sorted(ALL_METHODS - set(RULES))
    assert not missing, f"RPCs without a permission rule: {missing}"
    assert set(RULES) == ALL_METHODS, f"rules for no RPC: {sorted(set(RULES) - ALL_METHODS)}"
    assert {m.split("/")[1] for m in ALL_METHODS} == set(GUARDED_SERVICES)


def test_the_matrix_names_every_unary_and_server_stream_rpc() -> None:
    names = {m.rsplit("/", 1)[1] for m in ALL_METHODS} - {"Play"}
    assert set(_requests(1, 1)) == names


def _metadata(secret: str | None) -> tuple[tuple[str, str], ...] | None:
    return None if secret is None else (("authorization", f"Bearer {secret}"),)


async def _outcome(call: Callable[..., Any], request: Message, secret: str | None) -> Any:
    try:
        result = call(request, metadata=_metadata(secret))
        if hasattr(result, "__aiter__"):
            async for _ in result:
                pass
        else:
            await result
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


async def _account(accounts: account_pb2_grpc.AccountServiceStub, name: str, role: int) -> str:
    made = await accounts.CreateAccount(
        account_pb2.CreateAccountRequest(name=name, role=role), metadata=ADMIN_METADATA
    )
    return made.key.secret


def test_every_rpc_as_every_kind_of_caller(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            channel = grpc.aio.insecure_channel(server.address)
            async with channel:
                api = arena_pb2_grpc.ArenaServiceStub(channel)
                accounts = account_pb2_grpc.AccountServiceStub(channel)
                keys: dict[str, str | None] = {ANON: None, ADMIN: ADMIN_TOKEN}
                keys[AUTHOR] = await _account(accounts, "author", account_pb2.ROLE_AUTHOR)
                keys[OTHER_AUTHOR] = await _account(accounts, "other", account_pb2.ROLE_AUTHOR)
                keys[ORGANISER] = await _account(accounts, "org", account_pb2.ROLE_ORGANISER)
                keys[OTHER_ORGANISER] = await _account(accounts, "org2", account_pb2.ROLE_ORGANISER)
                author = _metadata(keys[AUTHOR])
                for name in ("target", "player", "p2", "p3"):
                    await api.RegisterBot(arena_pb2.RegisterBotRequest(name=name), metadata=author)
                keys[BOT] = (
                    await accounts.RotateBotToken(account_pb2.BotRef(bot="player"), metadata=author)
                ).token
                organiser = _metadata(keys[ORGANISER])
                made = await api.CreateTournament(
                    arena_pb2.CreateTournamentRequest(
                        game="crossing", bots=["player", "p2", "p3"], table_size=2
                    ),
                    metadata=organiser,
                )
                schedule = arena_pb2.CreateScheduleRequest(
                    name="weekly", game="crossing", table_size=2, bots=["player", "p2"]
                )
                schedule.every.FromTimedelta(timedelta(days=7))
                created = await api.CreateSchedule(schedule, metadata=organiser)
                await api.StartLadder(
                    arena_pb2.StartLadderRequest(game=LADDER_GAME, table_size=2),
                    metadata=organiser,
                )
                test = await api.StartVersionTest(
                    arena_pb2.StartVersionTestRequest(
                        game="crossing", candidate="p2", baseline="p3", elo1=5.0
                    ),
                    metadata=author,
                )
                cases = _requests(made.tournament_id, created.schedule_id, test.test_id)
                wrong: list[str] = []
                for method, (request, allowed) in cases.items():
                    stub = accounts if hasattr(accounts, method) else api
                    for who in ORDER:
                        code = await _outcome(getattr(stub, method), request, keys[who])
                        denied = code in (
                            grpc.StatusCode.UNAUTHENTICATED,
                            grpc.StatusCode.PERMISSION_DENIED,
                        )
                        expected = (
                            grpc.StatusCode.UNAUTHENTICATED
                            if who == ANON
                            else grpc.StatusCode.PERMISSION_DENIED
                        )
                        if who in allowed and denied:
                            wrong.append(f"{method} as {who}: refused with {code.name}")
                        if who not in allowed and code != expected:
                            wrong.append(f"{method} as {who}: {code.name}, not {expected.name}")
                assert not wrong, "\n".join(wrong)

    asyncio.run(scenario())
