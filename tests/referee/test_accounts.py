"""Accounts over a real referee: keys, login and its rate limit, rotation, retirement, versions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import grpc
import psycopg
import pytest

from arena.referee.clock import Clock
from arena.referee.limits import Limits, Rate
from arena.v1 import (
    account_pb2,
    account_pb2_grpc,
    arena_pb2,
    arena_pb2_grpc,
    bot_pb2,
    bot_pb2_grpc,
    common_pb2,
)
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN_METADATA, playing, running_referee, wait_finished

pytestmark = pytest.mark.integration

PASSWORD = "correct horse battery"


def _bearer(secret: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {secret}"),)


async def _code(call: object) -> grpc.StatusCode:
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


def test_keys_are_shown_once_listed_revoked_and_expired(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with (
            running_referee(fresh_database_url) as server,
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            accounts = account_pb2_grpc.AccountServiceStub(channel)
            made = await accounts.CreateAccount(
                account_pb2.CreateAccountRequest(name="ada", password=PASSWORD)
            )
            assert made.account.role == account_pb2.ROLE_AUTHOR
            assert made.key.secret.startswith("arenakey_")
            first = _bearer(made.key.secret)
            me = await accounts.WhoAmI(account_pb2.WhoAmIRequest(), metadata=first)
            assert (me.name, me.has_password) == ("ada", True)
            # Anyone may open an author account, but not an organiser's.
            denied = await _code(
                accounts.CreateAccount(
                    account_pb2.CreateAccountRequest(name="eve", role=account_pb2.ROLE_ORGANISER)
                )
            )
            assert denied == grpc.StatusCode.PERMISSION_DENIED
            wrong = accounts.Login(account_pb2.LoginRequest(name="ada", password="nope-nope"))
            assert await _code(wrong) == grpc.StatusCode.UNAUTHENTICATED
            login = await accounts.Login(
                account_pb2.LoginRequest(name="ada", password=PASSWORD, key_name="laptop")
            )
            assert login.key.HasField("expires_at")
            extra = await accounts.CreateKey(
                account_pb2.CreateKeyRequest(name="ci"), metadata=first
            )
            listed = await accounts.ListKeys(account_pb2.ListKeysRequest(), metadata=first)
            assert [k.name for k in listed.keys] == ["first", "laptop", "ci"]
            assert all(extra.secret not in str(k) for k in listed.keys)
            await accounts.RevokeKey(account_pb2.RevokeKeyRequest(name="ci"), metadata=first)
            refused = accounts.WhoAmI(account_pb2.WhoAmIRequest(), metadata=_bearer(extra.secret))
            assert await _code(refused) == grpc.StatusCode.UNAUTHENTICATED
            with psycopg.connect(fresh_database_url, autocommit=True) as conn:
                conn.execute("UPDATE api_keys SET expires_at = now() WHERE name = 'laptop'")
                stored = conn.execute("SELECT secret_hash, name FROM api_keys").fetchall()
            expired = accounts.WhoAmI(account_pb2.WhoAmIRequest(), metadata=_bearer(login.secret))
            assert await _code(expired) == grpc.StatusCode.UNAUTHENTICATED
            # Keys are stored as digests only; the audit log holds no secret.
            assert all(login.secret.encode() not in bytes(h) for h, _ in stored)
            audit = await accounts.ListAudit(
                account_pb2.ListAuditRequest(), metadata=ADMIN_METADATA
            )
            actions = [e.action for e in audit.entries]
            assert {"CreateAccount", "Login", "CreateKey", "RevokeKey"} <= set(actions)
            text = str(audit)
            for secret in (PASSWORD, made.key.secret, login.secret, extra.secret):
                assert secret not in text

    asyncio.run(scenario())


def test_failed_logins_are_rate_limited(fresh_database_url: str) -> None:
    limits = Limits(failed_logins=Rate(burst=3, every=timedelta(minutes=5)))

    async def scenario() -> None:
        async with (
            running_referee(fresh_database_url, limits=limits) as server,
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            accounts = account_pb2_grpc.AccountServiceStub(channel)
            await accounts.CreateAccount(
                account_pb2.CreateAccountRequest(name="ada", password=PASSWORD)
            )
            codes = [
                await _code(
                    accounts.Login(account_pb2.LoginRequest(name="ada", password=f"guess-{i}"))
                )
                for i in range(5)
            ]
            assert (
                codes
                == [grpc.StatusCode.UNAUTHENTICATED] * 3 + [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
            )
            # Even the right password waits now: a guesser learns nothing more.
            right = accounts.Login(account_pb2.LoginRequest(name="ada", password=PASSWORD))
            assert await _code(right) == grpc.StatusCode.RESOURCE_EXHAUSTED

    asyncio.run(scenario())


HOLD = Clock(
    per_decision=timedelta(seconds=30),
    bank=timedelta(0),
    grace=timedelta(milliseconds=50),
    max_strikes=3,
)


async def _requests(token: str) -> AsyncIterator[bot_pb2.BotMessage]:
    yield bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token))
    await asyncio.Event().wait()  # keep the stream open, answer nothing


def test_rotation_closes_the_old_stream_and_the_match_goes_on(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with (
            running_referee(fresh_database_url, clock=HOLD) as server,
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            accounts = account_pb2_grpc.AccountServiceStub(channel)
            made = await accounts.CreateAccount(account_pb2.CreateAccountRequest(name="ada"))
            key = _bearer(made.key.secret)
            old = (
                await api.RegisterBot(arena_pb2.RegisterBotRequest(name="mine"), metadata=key)
            ).token
            other = (await api.RegisterBot(arena_pb2.RegisterBotRequest(name="theirs"))).token
            plays = bot_pb2_grpc.BotServiceStub(channel).Play(_requests(old))
            partner = RandomBot(seed=2)
            async with playing([(partner, other)], server.address):
                match = await api.CreateMatch(
                    arena_pb2.CreateMatchRequest(game="crossing", bots=["mine", "theirs"]),
                    metadata=ADMIN_METADATA,
                )
                held = None
                while held is None:
                    message = await plays.read()
                    if message.HasField("decision"):
                        held = message.decision
                rotated = await accounts.RotateBotToken(
                    account_pb2.BotRef(bot="mine"), metadata=key
                )
                started = time.monotonic()
                with pytest.raises(grpc.aio.AioRpcError) as closed:
                    while True:
                        ended = await plays.read()
                        if ended is grpc.aio.EOF:
                            break
                assert time.monotonic() - started < 1.0
                assert closed.value.code() == grpc.StatusCode.UNAUTHENTICATED
                assert "rotated" in (closed.value.details() or "")
                stale = bot_pb2_grpc.BotServiceStub(channel).Play(_requests(old))
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stale.read()
                assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
                mine = RandomBot(seed=1)
                async with playing([(mine, rotated.token)], server.address):
                    done = await wait_finished(server.address, match.match_id)
            assert done.status == common_pb2.MATCH_STATUS_FINISHED
            first = mine.requests[0]
            assert (first.match_id, first.decision) == (held.match_id, held.decision)
            seat = next(s for s in done.seats if s.bot == "mine")
            assert seat.strikes == 0, "the rotation cost no strike"

    asyncio.run(scenario())


def test_versions_are_recorded_and_retired_bots_leave(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with (
            running_referee(fresh_database_url) as server,
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            accounts = account_pb2_grpc.AccountServiceStub(channel)
            made = await accounts.CreateAccount(account_pb2.CreateAccountRequest(name="ada"))
            key = _bearer(made.key.secret)
            tokens = [
                (await api.RegisterBot(arena_pb2.RegisterBotRequest(name=n), metadata=key)).token
                for n in ("a", "b")
            ]
            bots = [RandomBot(seed=i) for i in range(2)]
            create = arena_pb2.CreateMatchRequest(game="crossing", bots=["a", "b"], seed=5)
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                one = await api.CreateMatch(create, metadata=ADMIN_METADATA)
                await wait_finished(server.address, one.match_id)
                await accounts.CreateBotVersion(
                    account_pb2.CreateBotVersionRequest(
                        bot="a", label="v2", notes="deeper search", provisional=True
                    ),
                    metadata=key,
                )
                two = await api.CreateMatch(create, metadata=ADMIN_METADATA)
                finished = await wait_finished(server.address, two.match_id)
            first = await api.GetMatch(arena_pb2.GetMatchRequest(match_id=one.match_id))
            assert [s.version for s in first.seats if s.bot == "a"] == ["v1"]
            assert [s.version for s in finished.seats if s.bot == "a"] == ["v2"]
            every = await api.GetBotStats(arena_pb2.GetBotStatsRequest(bot="a"))
            v2 = await api.GetBotStats(arena_pb2.GetBotStatsRequest(bot="a", version="v2"))
            assert v2.version == "v2"
            assert sum(g.matches for g in v2.games) == 1
            assert sum(g.matches for g in every.games) == 2
            versions = await accounts.ListBotVersions(account_pb2.BotRef(bot="a"))
            assert [(v.label, v.matches) for v in versions.versions] == [("v2", 1), ("v1", 1)]
            board = await api.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="crossing"))
            assert "a" in [e.bot for e in board.entries]
            cup = await api.CreateTournament(
                arena_pb2.CreateTournamentRequest(
                    game="crossing", bots=["a", "b"], rounds=2, table_size=2
                ),
                metadata=ADMIN_METADATA,
            )
            await accounts.RetireBot(account_pb2.BotRef(bot="a"), metadata=key)
            with psycopg.connect(fresh_database_url) as conn:
                withdrawn = conn.execute(
                    "SELECT b.name, e.withdrawn_round FROM entries e JOIN bots b"
                    " ON b.id = e.bot_id WHERE e.tournament_id = %s ORDER BY b.name",
                    [cup.tournament_id],
                ).fetchall()
            assert withdrawn == [("a", 1), ("b", None)], "it leaves new pairings"
            board = await api.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="crossing"))
            assert "a" not in [e.bot for e in board.entries]
            again = await api.GetMatch(arena_pb2.GetMatchRequest(match_id=one.match_id))
            assert again.seats == first.seats, "history stays"
            plays = bot_pb2_grpc.BotServiceStub(channel).Play(_requests(tokens[0]))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await plays.read()
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED

    asyncio.run(scenario())
