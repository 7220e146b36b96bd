"""The referee over real sockets and a real Postgres: full matches, misbehaving bots, replays."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import grpc
import pytest

import engines
from arena.protocol import wire
from arena.referee.clock import Clock
from arena.sdk import Bot, BotRejected, BotReplaced
from arena.storage import Database
from arena.v1 import arena_pb2, bot_pb2, bot_pb2_grpc, common_pb2
from engines.replay import driver_for
from tests.referee.bots import RandomBot, ScriptedAnswerBot, SilentBot, json_action
from tests.referee.harness import (
    ADMIN_METADATA,
    create_match,
    playing,
    register,
    running_referee,
    stub,
    wait_finished,
)

pytestmark = pytest.mark.integration


async def _tokens(address: str, names: list[str]) -> list[str]:
    return [await register(address, name) for name in names]


def test_full_hart_match_with_a_bot_in_a_subprocess(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["proc", "r1", "r2", "r3"]
            tokens = await _tokens(server.address, names)
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "arena.cli.main",
                    "bot",
                    "run",
                    "--strategy",
                    "heuristic",
                    f"--token={tokens[0]}",
                    "--address",
                    server.address,
                    "--seed",
                    "5",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            try:
                bots = [RandomBot(seed=i) for i in range(3)]
                async with playing(list(zip(bots, tokens[1:], strict=True)), server.address):
                    await _connected(server.address, 4)
                    match_id = await create_match(server.address, "hart", names, seed=11)
                    match = await wait_finished(server.address, match_id)
                    await _until(lambda: all(b.finished for b in bots))
            finally:
                process.terminate()
                _, err = process.communicate(timeout=10)
            assert match.status == common_pb2.MATCH_STATUS_FINISHED
            assert match.termination == common_pb2.TERMINATION_COMPLETED
            assert sorted(s.bot for s in match.seats) == sorted(names)
            assert all(s.strikes == 0 for s in match.seats), err.decode()[-2000:]
            assert {s.rank for s in match.seats} <= {1, 2, 3, 4}
            for bot in bots:
                assert bot.finished and bot.finished[0].match_id == match_id
                assert not bot.problems
            await _replay_matches(fresh_database_url, match_id, match)

    asyncio.run(scenario())


async def _until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until `condition()` holds (MatchEnd follows the stored result by a moment)."""
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("condition not reached")


async def _connected(address: str, count: int) -> None:
    channel, api = stub(address)
    async with channel:
        for _ in range(200):
            if len((await api.ListBots(arena_pb2.ListBotsRequest())).bots) >= count:
                return
            await asyncio.sleep(0.05)
    raise TimeoutError("bots did not connect")


async def _replay_matches(url: str, match_id: int, match: arena_pb2.Match) -> None:
    """The stored log replays through the engine to the live outcome."""
    db = await Database.open(url)
    try:
        record = await db.record(match_id)
    finally:
        await db.close()
    rules = engines.get(record.game)
    final = engines.replay(rules, record)
    outcome = rules.outcome(final)
    assert outcome is not None
    live = {s.seat: s for s in match.seats}
    if not any(s.forfeited for s in match.seats):
        assert list(outcome.ranks) == [live[i].rank for i in range(record.seats)]
    assert list(outcome.scores) == [live[i].score for i in range(record.seats)]


def test_stored_replay_through_the_cli(fresh_database_url: str, tmp_path: Path) -> None:
    async def scenario() -> subprocess.CompletedProcess[str]:
        async with running_referee(fresh_database_url) as server:
            names = ["c0", "c1", "c2"]
            tokens = await _tokens(server.address, names)
            bots = [RandomBot(seed=i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=3)
                await wait_finished(server.address, match_id)
            # No database settings: the CLI fetches the record from the arena, not from Postgres.
            env = {
                k: v for k, v in os.environ.items() if k not in ("ARENA_DATABASE_URL", "ARENA_HOME")
            }
            env.update(ARENA_ADDRESS=server.address, ARENA_HOME=str(tmp_path / "home"))
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "arena.cli.main", "replay", str(match_id)],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
        return done

    done = asyncio.run(scenario())
    assert done.returncode == 0, done.stderr
    assert "the final state matches" in done.stdout
    for seat, name in enumerate(["c0", "c1", "c2"]):
        assert f"seat {seat} played {name}" in done.stdout
    assert len(done.stdout.splitlines()) > 20  # the game log, decision by decision
    assert not (tmp_path / "home").exists()  # and no database was made on the way


def test_timeout_gives_a_strike_and_the_default_action(fresh_database_url: str) -> None:
    # The silent request certainly times out; 2 s leaves the other answers room under load.
    clock = Clock(
        per_decision=timedelta(seconds=2),
        bank=timedelta(0),
        grace=timedelta(milliseconds=50),
        max_strikes=3,
    )

    async def scenario() -> None:
        async with running_referee(fresh_database_url, clock=clock) as server:
            names = ["slow", "s1", "s2"]
            tokens = await _tokens(server.address, names)
            slow = SilentBot(silent_on={2})
            bots: list[Bot] = [slow, RandomBot(1), RandomBot(2)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, "hart", names, seed=5)
                match = await wait_finished(server.address, match_id)
            seat = next(s for s in match.seats if s.bot == "slow")
            assert seat.strikes == 1 and not seat.forfeited
            kinds = [p.kind for p in slow.problems if p.strike]
            assert kinds == [bot_pb2.PROBLEM_KIND_TIMEOUT]
            assert "no answer to decision" in slow.problems[0].message
            assert slow.problems[0].strikes == 1 and slow.problems[0].max_strikes == 3

    asyncio.run(scenario())


def test_bad_answers_strike_then_forfeit(fresh_database_url: str) -> None:
    bad = [
        bot_pb2.Action(index=999),
        json_action("{not json"),
        json_action({"type": "pack", "goods": ["statue"] * 5}),
    ]

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["bad", "b1", "b2", "b3"]
            tokens = await _tokens(server.address, names)
            liar = ScriptedAnswerBot(bad)
            bots: list[Bot] = [liar, RandomBot(1), RandomBot(2), RandomBot(3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                # The liar must be a trader at decision 0, so it is not seat 0's sheriff: check
                # the Problems rather than assume the seat order.
                match_id = await create_match(server.address, "hart", names, seed=2)
                match = await wait_finished(server.address, match_id)
            seat = next(s for s in match.seats if s.bot == "bad")
            assert seat.forfeited and seat.strikes == 3
            assert seat.rank == 4, "a forfeiting seat is ranked last"
            assert match.termination == common_pb2.TERMINATION_FORFEIT
            messages = [p.message for p in liar.problems]
            kinds = [p.kind for p in liar.problems]
            assert kinds[:3] == [
                bot_pb2.PROBLEM_KIND_INVALID_ACTION,
                bot_pb2.PROBLEM_KIND_INVALID_ACTION,
                bot_pb2.PROBLEM_KIND_ILLEGAL_ACTION,
            ], messages
            assert "index 999 is out of range" in messages[0]
            assert "not valid JSON" in messages[1]
            assert "not legal" in messages[2]
            assert kinds[3] == bot_pb2.PROBLEM_KIND_FORFEIT and "ranked last" in messages[3]
            others = [s for s in match.seats if s.bot != "bad"]
            assert sorted(s.rank for s in others)[0] == 1 and all(s.rank < 4 for s in others)

    asyncio.run(scenario())


def test_disconnect_and_reconnect_mid_match(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url, reconnect_grace=5.0) as server:
            names = ["flaky", "f1", "f2"]
            tokens = await _tokens(server.address, names)
            flaky = RandomBot(seed=9)
            others = [RandomBot(1), RandomBot(2)]
            async with playing(list(zip(others, tokens[1:], strict=True)), server.address):
                first = asyncio.create_task(flaky.run_async(server.address, tokens[0]))
                await _connected(server.address, 3)
                match_id = await create_match(server.address, "hart", names, seed=8)
                while len(flaky.requests) < 6:
                    await asyncio.sleep(0.01)
                flaky.stop()
                await first
                answered_before = len(flaky.requests)
                await asyncio.sleep(0.5)
                second = asyncio.create_task(flaky.run_async(server.address, tokens[0]))
                match = await wait_finished(server.address, match_id)
                await _until(lambda: bool(flaky.finished))
                flaky.stop()
                await second
            seat = next(s for s in match.seats if s.bot == "flaky")
            assert seat.strikes == 0, [p.message for p in flaky.problems]
            assert len(flaky.requests) > answered_before
            assert flaky.finished and flaky.finished[-1].match_id == match_id

    asyncio.run(scenario())


def test_wrong_token_and_bad_calls_get_clear_status_errors(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            with pytest.raises(BotRejected, match="UNAUTHENTICATED: unknown bot token"):
                await asyncio.wait_for(Bot().run_async(server.address, "wrong"), 10)
            channel, api = stub(server.address)
            async with channel:
                bots = bot_pb2_grpc.BotServiceStub(channel)
                call = bots.Play(iter([bot_pb2.BotMessage(heartbeat=bot_pb2.Heartbeat())]))
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    async for _ in call:
                        pass
                assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                await api.RegisterBot(arena_pb2.RegisterBotRequest(name="dup"))
                await _expect(
                    api.RegisterBot(arena_pb2.RegisterBotRequest(name="dup")),
                    grpc.StatusCode.ALREADY_EXISTS,
                    "already exists",
                )
                await _expect(
                    api.RegisterBot(arena_pb2.RegisterBotRequest(name="bad name!")),
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "bot name",
                )
                request = arena_pb2.CreateMatchRequest(game="hart", bots=["dup", "x", "y"])
                await _expect(api.CreateMatch(request), grpc.StatusCode.UNAUTHENTICATED, "admin")
                await _expect(
                    api.CreateMatch(request, metadata=(("authorization", "Bearer nope"),)),
                    grpc.StatusCode.PERMISSION_DENIED,
                    "wrong admin token",
                )
                await _expect(
                    api.CreateMatch(request, metadata=ADMIN_METADATA),
                    grpc.StatusCode.NOT_FOUND,
                    "unknown bot 'x'",
                )
                chess = arena_pb2.CreateMatchRequest(game="chess", bots=["dup", "x", "y"])
                await _expect(
                    api.CreateMatch(chess, metadata=ADMIN_METADATA),
                    grpc.StatusCode.NOT_FOUND,
                    "unknown game 'chess'",
                )
                few = arena_pb2.CreateMatchRequest(game="hart", bots=["dup"])
                await _expect(
                    api.CreateMatch(few, metadata=ADMIN_METADATA),
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "not 1",
                )
                bad_option = arena_pb2.CreateMatchRequest(game="hart", bots=["dup", "x", "y"])
                bad_option.options.update({"bogus": 1})
                await _expect(
                    api.CreateMatch(bad_option, metadata=ADMIN_METADATA),
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "no option",
                )
                await _expect(
                    api.GetMatch(arena_pb2.GetMatchRequest(match_id=424242)),
                    grpc.StatusCode.NOT_FOUND,
                    "no match 424242",
                )

    asyncio.run(scenario())


async def _expect(call: object, code: grpc.StatusCode, text: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call  # type: ignore[misc]
    assert info.value.code() == code
    assert text in (info.value.details() or ""), info.value.details()


def test_malformed_messages_do_not_disturb_the_match(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["m0", "m1", "m2"]
            tokens = await _tokens(server.address, names)
            bots = [RandomBot(seed=i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address) as tasks:
                match_id = await create_match(server.address, "hart", names, seed=4)
                # A second stream of bot m0 sends junk: the old stream is replaced (its SDK
                # stops with BotReplaced), the match goes on, and every junk message gets a
                # Problem naming what was wrong.
                channel, _ = stub(server.address)
                async with channel:
                    junk = [
                        bot_pb2.BotMessage(hello=bot_pb2.Hello(token=tokens[0])),
                        bot_pb2.BotMessage(),
                        bot_pb2.BotMessage(hello=bot_pb2.Hello(token=tokens[0])),
                        bot_pb2.BotMessage(
                            action=bot_pb2.Action(match_id=999, decision=0, index=0)
                        ),
                    ]
                    call = bot_pb2_grpc.BotServiceStub(channel).Play(iter(junk))
                    problems = []
                    async for message in call:
                        if message.WhichOneof("kind") == "problem":
                            problems.append(message.problem)
                        if len(problems) == 3:
                            call.cancel()
                            break
                    assert problems[0].kind == bot_pb2.PROBLEM_KIND_MALFORMED_MESSAGE
                    assert "none of hello" in problems[0].message
                    assert "only valid as the first message" in problems[1].message
                    assert problems[2].kind == bot_pb2.PROBLEM_KIND_NOT_YOUR_DECISION
                with pytest.raises(BotReplaced):
                    await asyncio.wait_for(tasks[0], 10)
                again = RandomBot(seed=0)  # m0 comes back, so the match needs no timeouts
                back = asyncio.create_task(again.run_async(server.address, tokens[0]))
                match = await wait_finished(server.address, match_id)
                again.stop()
                await back
            assert match.status == common_pb2.MATCH_STATUS_FINISHED

    asyncio.run(scenario())


def test_two_matches_share_one_bot_stream_and_nothing_leaks(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["w0", "w1", "w2"]
            tokens = await _tokens(server.address, names)
            bots = [RandomBot(seed=i) for i in range(3)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                first = await create_match(server.address, "hart", names, seed=21)
                second = await create_match(server.address, "hart", names[::-1], seed=22)
                for match_id in (first, second):
                    await wait_finished(server.address, match_id)
                await _until(lambda: all(len(b.finished) == 2 for b in bots))
            for bot in bots:
                assert {end.match_id for end in bot.finished} == {first, second}
            db = await Database.open(fresh_database_url)
            try:
                for match_id in (first, second):
                    _check_views(await db.record(match_id), match_id, bots)
            finally:
                await db.close()

    asyncio.run(scenario())


def _check_views(record: engines.Record, match_id: int, bots: list[RandomBot]) -> None:
    """What each bot received is exactly its seat's view: nothing of any other seat's secrets."""
    rules = engines.get(record.game)
    expected = {}
    driver = driver_for(rules, record)  # the views with their events, as the driver shows them
    for wire_joint in record.moves:
        decision = driver.decision
        assert decision is not None
        for seat in decision.seats:
            expected[(decision.number, seat)] = driver.view(seat)
        driver.play_wire(wire_joint)
    received = 0
    for bot in bots:
        for request in bot.requests:
            if request.match_id != match_id:
                continue
            received += 1
            view = json.loads(request.view_json)
            assert view == expected[(request.decision, request.seat)]
            assert wire.normalized(wire.view_json(request.view)) == wire.normalized(view)
    assert received == sum(len(m) for m in record.moves)


def test_a_bot_that_never_connects_times_out_and_forfeits(fresh_database_url: str) -> None:
    clock = Clock(
        per_decision=timedelta(milliseconds=200),
        bank=timedelta(0),
        grace=timedelta(milliseconds=20),
        max_strikes=2,
    )

    async def scenario() -> None:
        async with running_referee(fresh_database_url, clock=clock, reconnect_grace=0.3) as server:
            names = ["absent", "p1", "p2"]
            tokens = await _tokens(server.address, names)
            bots = [RandomBot(1), RandomBot(2)]
            async with playing(list(zip(bots, tokens[1:], strict=True)), server.address):
                channel, api = stub(server.address)
                async with channel:
                    request = arena_pb2.CreateMatchRequest(game="hart", bots=names, seed=6)
                    request.connect_timeout.FromMilliseconds(100)
                    match = await api.CreateMatch(request, metadata=ADMIN_METADATA)
                match = await wait_finished(server.address, match.match_id, timeout=60)
                await _until(lambda: bool(bots[0].finished))
            absent = next(s for s in match.seats if s.bot == "absent")
            assert absent.forfeited and absent.strikes == 2 and absent.rank == 3
            assert all(end.results[0].rating_change != 0 for end in bots[0].finished)

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("game", "seats", "options"),
    [("crossing", 3, {"round_cap": 8}), ("loyang", 2, {}), ("loyang", 1, {})],
)
def test_full_match_of_every_game_over_the_wire(
    fresh_database_url: str, game: str, seats: int, options: dict[str, object]
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = [f"{game}{i}" for i in range(seats)]
            tokens = await _tokens(server.address, names)
            bots = [RandomBot(seed=i) for i in range(seats)]
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                match_id = await create_match(server.address, game, names, seed=5, **options)
                match = await wait_finished(server.address, match_id, timeout=120)
                await _until(lambda: all(b.finished for b in bots))
            assert all(s.strikes == 0 for s in match.seats)
            assert all(not b.problems for b in bots)
            assert all(r.view.WhichOneof("game") == game for b in bots for r in b.requests)
            await _replay_matches(fresh_database_url, match_id, match)
            db = await Database.open(fresh_database_url)
            try:
                _check_views(await db.record(match_id), match_id, bots)
            finally:
                await db.close()

    asyncio.run(scenario())


def test_tokens_never_look_like_options() -> None:
    # A token starting with "-" made `arena bot run --token TOKEN` fail now and then.
    from arena.referee.auth import TOKEN_PREFIX, new_token

    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    assert all(t.startswith(TOKEN_PREFIX) and not t.startswith("-") for t in tokens)
