"""The version-test RPCs on a real referee: who may call them, how they refuse, and a test of
two versions of one bot played by two real bot clients."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import grpc
import pytest

from arena.cli.main import main
from arena.referee.clock import Clock
from arena.sdk.client import StrategyBot
from arena.storage import Database
from arena.v1 import account_pb2, account_pb2_grpc, arena_pb2
from arena.versiontest import schedule
from tests.referee.harness import (
    ADMIN_METADATA,
    register,
    running_referee,
    stub,
    wait_finished,
)


def test_start_get_and_stop_with_their_refusals(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            for name in ("a", "b", "c"):
                await register(server.address, name)
            channel, api = stub(server.address)
            async with channel:
                request = arena_pb2.StartVersionTestRequest(
                    game="hart", candidate="a", baseline="b", elo1=5.0, seats=3, fillers=["c"]
                )
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await api.StartVersionTest(request)
                assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
                made = await api.StartVersionTest(request, metadata=ADMIN_METADATA)
                assert made.status == arena_pb2.VERSION_TEST_STATUS_RUNNING
                assert (made.alpha, made.beta, made.seats, made.max_matches) == (0.05, 0.05, 3, 0)
                assert made.upper_bound == pytest.approx(2.944, abs=1e-3)
                got = await api.GetVersionTest(
                    arena_pb2.GetVersionTestRequest(test_id=made.test_id)
                )
                assert got.candidate == "a" and list(got.fillers) == ["c"] and not got.sets
                stop = arena_pb2.StopVersionTestRequest(test_id=made.test_id)
                stopped = await api.StopVersionTest(stop, metadata=ADMIN_METADATA)
                assert stopped.status == arena_pb2.VERSION_TEST_STATUS_STOPPED
                refusals = [
                    (api.StopVersionTest(stop, metadata=ADMIN_METADATA), grpc.StatusCode.NOT_FOUND),
                    (
                        api.GetVersionTest(arena_pb2.GetVersionTestRequest(test_id=999)),
                        grpc.StatusCode.NOT_FOUND,
                    ),
                    (
                        api.StartVersionTest(
                            arena_pb2.StartVersionTestRequest(
                                game="hart",
                                candidate="a",
                                baseline="zed",
                                elo1=5.0,
                                seats=3,
                                fillers=["c"],
                            ),
                            metadata=ADMIN_METADATA,
                        ),
                        grpc.StatusCode.NOT_FOUND,
                    ),
                    (
                        api.StartVersionTest(
                            arena_pb2.StartVersionTestRequest(
                                game="hart",
                                candidate="a",
                                baseline="b",
                                elo1=5.0,
                                seats=4,
                                fillers=["c"],
                            ),
                            metadata=ADMIN_METADATA,
                        ),
                        grpc.StatusCode.INVALID_ARGUMENT,
                    ),
                    (
                        api.StartVersionTest(
                            arena_pb2.StartVersionTestRequest(
                                game="chess", candidate="a", baseline="b", elo1=5.0
                            ),
                            metadata=ADMIN_METADATA,
                        ),
                        grpc.StatusCode.NOT_FOUND,
                    ),
                ]
                for call, code in refusals:
                    with pytest.raises(grpc.aio.AioRpcError) as info:
                        await call
                    assert info.value.code() == code, info.value.details()

    asyncio.run(scenario())


async def _account(address: str, name: str) -> tuple[tuple[str, str], ...]:
    """A new author account's metadata."""
    channel = grpc.aio.insecure_channel(address)
    async with channel:
        accounts = account_pb2_grpc.AccountServiceStub(channel)
        made = await accounts.CreateAccount(
            account_pb2.CreateAccountRequest(name=name, role=account_pb2.ROLE_AUTHOR),
            metadata=ADMIN_METADATA,
        )
    return (("authorization", f"Bearer {made.key.secret}"),)


def test_the_owner_of_both_sides_starts_and_stops_others_are_refused(
    fresh_database_url: str,
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            ada, eve = await _account(server.address, "ada"), await _account(server.address, "eve")
            channel, api = stub(server.address)
            async with channel:
                for name, owner in (("ada1", ada), ("ada2", ada), ("eve1", eve)):
                    await api.RegisterBot(arena_pb2.RegisterBotRequest(name=name), metadata=owner)
                accounts = account_pb2_grpc.AccountServiceStub(channel)
                await accounts.CreateBotVersion(
                    account_pb2.CreateBotVersionRequest(bot="ada1", label="v2"), metadata=ada
                )

                def request(candidate: str, baseline: str) -> arena_pb2.StartVersionTestRequest:
                    return arena_pb2.StartVersionTestRequest(
                        game="crossing", candidate=candidate, baseline=baseline, elo1=5.0
                    )

                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await api.StartVersionTest(request("ada1", "eve1"), metadata=ada)
                assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert info.value.details() == (
                    "baseline 'eve1': bot 'eve1' belongs to another account; a version test "
                    "needs the owner of both sides (or an organiser)"
                )
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await api.StartVersionTest(request("ada1@v2", "eve1"), metadata=eve)
                assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert "candidate 'ada1@v2': bot 'ada1' belongs to another" in (
                    info.value.details() or ""
                )
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await api.StartVersionTest(request("ada1@v9", "ada2"), metadata=ada)
                assert info.value.code() == grpc.StatusCode.NOT_FOUND
                assert "bot ada1 has no version 'v9'" in (info.value.details() or "")
                mine = await api.StartVersionTest(request("ada1@v2", "ada1@v1"), metadata=ada)
                assert (mine.candidate, mine.baseline, mine.owner) == ("ada1@v2", "ada1@v1", "ada")
                by_admin = await api.StartVersionTest(
                    request("ada1", "ada2"), metadata=ADMIN_METADATA
                )
                theirs = await api.StartVersionTest(
                    request("eve1", "ada2"), metadata=ADMIN_METADATA
                )
                stop = arena_pb2.StopVersionTestRequest
                for test_id, who in ((mine.test_id, eve), (theirs.test_id, ada)):
                    with pytest.raises(grpc.aio.AioRpcError) as info:
                        await api.StopVersionTest(stop(test_id=test_id), metadata=who)
                    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
                    assert f"version test {test_id} belongs to another account" in (
                        info.value.details() or ""
                    )
                done = await api.StopVersionTest(stop(test_id=mine.test_id), metadata=ada)
                assert done.status == arena_pb2.VERSION_TEST_STATUS_STOPPED
                # ada owns both sides of the admin's test: she may stop it too
                done = await api.StopVersionTest(stop(test_id=by_admin.test_id), metadata=ada)
                assert done.status == arena_pb2.VERSION_TEST_STATUS_STOPPED
                listed = await api.ListVersionTests(arena_pb2.ListVersionTestsRequest())
                assert [t.test_id for t in listed.tests] == [
                    theirs.test_id,
                    by_admin.test_id,
                    mine.test_id,
                ]
                assert [t.owner for t in listed.tests] == ["admin", "admin", "ada"]
                assert listed.tests[2].matches_counted == 0
                assert listed.tests[2].upper_bound == pytest.approx(2.944, abs=1e-3)
                running = await api.ListVersionTests(
                    arena_pb2.ListVersionTestsRequest(status=arena_pb2.VERSION_TEST_STATUS_RUNNING)
                )
                assert [t.test_id for t in running.tests] == [theirs.test_id]
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await accounts.CreateBotVersion(
                        account_pb2.CreateBotVersionRequest(bot="ada1@v2", label="v5"), metadata=ada
                    )
                assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert "ada1@v2 always plays version v2 of ada1" in (info.value.details() or "")
                await accounts.RetireBot(account_pb2.BotRef(bot="ada1"), metadata=ada)
                version = await accounts.ListBotVersions(account_pb2.BotRef(bot="ada1@v2"))
                assert version.HasField("retired_at"), "a retired bot's versions retire with it"

    asyncio.run(scenario())


def test_a_test_plays_exactly_the_two_versions_it_names(
    fresh_database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two versions of one bot, each run as its own bot with its own token, at one table."""

    async def scenario() -> tuple[str, list[arena_pb2.Match]]:
        async with running_referee(fresh_database_url) as server:
            ada = await _account(server.address, "ada")
            channel, api = stub(server.address)
            async with channel:
                await api.RegisterBot(arena_pb2.RegisterBotRequest(name="mine"), metadata=ada)
                accounts = account_pb2_grpc.AccountServiceStub(channel)
                for label in ("v2", "v3"):
                    await accounts.CreateBotVersion(
                        account_pb2.CreateBotVersionRequest(bot="mine", label=label), metadata=ada
                    )
                argv = ["test", "start", "--game", "crossing", "--candidate", "mine@v2"]
                argv += ["--baseline", "mine@v1", "--max-matches", "2", "--elo1", "5"]
                argv += ["--address", server.address, "--key", ada[0][1].split()[1]]
                assert await asyncio.to_thread(main, argv) == 0
                started = capsys.readouterr().out
                assert "mine@v1 plays as a bot of its own" in started, started
                assert "`arena bot rotate mine@v2`" in started, started
                test_id = int(started.split()[2])
                bots, tasks = [], []
                for k, name in enumerate(("mine@v2", "mine@v1")):
                    token = await accounts.RotateBotToken(
                        account_pb2.BotRef(bot=name), metadata=ada
                    )
                    bot = StrategyBot("random", seed=k)
                    bots.append(bot)
                    tasks.append(asyncio.create_task(bot.run_async(server.address, token.token)))

                async def connected() -> list[str]:
                    reply = await api.ListBots(arena_pb2.ListBotsRequest())
                    return [b.name for b in reply.bots]

                async def create(
                    game: str, names: Sequence[str], clock: Clock, seed: int, options: Any
                ) -> int:
                    request = arena_pb2.CreateMatchRequest(game=game, bots=names, seed=seed)
                    match = await api.CreateMatch(request, metadata=ADMIN_METADATA)
                    return int(match.match_id)

                db = await Database.open(fresh_database_url, max_size=2)
                try:
                    for _ in range(100):
                        if set(await connected()) >= {"mine@v1", "mine@v2"}:
                            break
                        await asyncio.sleep(0.05)
                    match_ids = await schedule.tick(db, connected, create)
                    assert len(match_ids) == 2, match_ids
                    matches = [await wait_finished(server.address, m) for m in match_ids]
                    await schedule.tick(db, connected, create)
                finally:
                    await db.close()
                    for bot in bots:
                        bot.stop()
                    await asyncio.gather(*tasks, return_exceptions=True)
                got = await api.GetVersionTest(arena_pb2.GetVersionTestRequest(test_id=test_id))
                assert got.status == arena_pb2.VERSION_TEST_STATUS_CAPPED, got
                assert got.matches_counted == 2
                await asyncio.to_thread(main, ["test", "list", "--address", server.address])
                return server.address, matches

    _, matches = asyncio.run(scenario())
    for match in matches:
        played = {(s.bot, s.version) for s in match.seats}
        assert played == {("mine@v2", "v2"), ("mine@v1", "v1")}, match.seats
    out = capsys.readouterr().out
    assert "mine@v2 vs mine@v1" in out and "stopped at its match cap" in out
