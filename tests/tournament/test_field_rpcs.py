"""Withdraw/enter and the tournament options over a real referee's gRPC socket and the CLI."""

from __future__ import annotations

import asyncio
import contextlib
import io

import grpc
import pytest

from arena.cli import main as cli
from arena.cli.errors import ExitCode
from arena.v1 import arena_pb2
from tests.referee.harness import ADMIN, ADMIN_METADATA, register, running_referee, stub

pytestmark = pytest.mark.integration


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_withdraw_and_enter_over_rpc_and_cli(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            address = server.address
            for name in ["r0", "r1", "r2", "r3", "r4"]:
                await register(address, name)
            channel, api = stub(address)
            async with channel:
                made = await api.CreateTournament(
                    arena_pb2.CreateTournamentRequest(
                        game="hart",
                        bots=["r0", "r1", "r2", "r3"],
                        table_size=4,
                        format=arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN,
                        rating_system=arena_pb2.RATING_SYSTEM_OPENSKILL,
                        forfeit_limit=2,
                    ),
                    metadata=ADMIN_METADATA,
                )
                assert made.format == arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN
                assert made.rating_system == arena_pb2.RATING_SYSTEM_OPENSKILL
                assert made.rounds == 1  # chosen from the field: 4 at one 4-seat table
                tid = made.tournament_id
                request = arena_pb2.ChangeEntrantRequest(tournament_id=tid, bot="r1")
                done = await api.WithdrawEntrant(request, metadata=ADMIN_METADATA)
                assert (done.bot, done.round_no) == ("r1", 1)
                with pytest.raises(grpc.aio.AioRpcError) as denied:
                    await api.WithdrawEntrant(request)
                assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
                with pytest.raises(grpc.aio.AioRpcError) as missing:
                    await api.EnterEntrant(
                        arena_pb2.ChangeEntrantRequest(tournament_id=tid, bot="ghost"),
                        metadata=ADMIN_METADATA,
                    )
                assert missing.value.code() == grpc.StatusCode.NOT_FOUND
                assert "unknown bot 'ghost'" in (missing.value.details() or "")
                admin = ("--address", address, "--admin-token", ADMIN)
                code, out, _ = await asyncio.to_thread(
                    _cli, "tournament", "enter", str(tid), "r4", *admin
                )
                assert code == 0 and out.strip() == f"r4 entered in tournament {tid} from round 1"
                code, _, err = await asyncio.to_thread(
                    _cli, "tournament", "enter", str(tid), "r4", *admin
                )
                assert (
                    code == ExitCode.REFUSED and "already entered" in err and "Traceback" not in err
                )
                code, out, _ = await asyncio.to_thread(
                    _cli, "leaderboard", "--game", "hart", "--rating-system", "openskill",
                    "--address", address,
                )  # fmt: skip
                assert code == 0 and "OpenSkill leaderboard: hart" in out

    asyncio.run(scenario())


def test_schedules_and_ladders_over_rpc_and_cli(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            address = server.address
            for name in ["q0", "q1", "q2"]:
                await register(address, name)
            admin = ("--address", address, "--admin-token", ADMIN)

            async def run(*argv: str) -> tuple[int, str, str]:
                return await asyncio.to_thread(_cli, *argv)

            code, out, _ = await run(
                "schedule", "create", "--name", "nightly", "--game", "hart", "--bots",
                "q0,q1,q2", "--table-size", "3", "--daily-at", "02:00", *admin,
            )  # fmt: skip
            assert code == 0 and "nightly" in out and "every 1 day" in out
            code, _, err = await run(
                "schedule", "create", "--name", "bad", "--game", "hart", "--every", "soon", *admin
            )
            assert code == 2 and "bad period 'soon'" in err
            code, _, err = await run(
                "schedule", "create", "--name", "nightly", "--game", "hart", "--every", "6h",
                "--table-size", "3", *admin,
            )  # fmt: skip
            assert code == ExitCode.REFUSED and "exists" in err and "Traceback" not in err
            code, out, _ = await run("schedule", "list", "--address", address)
            assert code == 0 and "every connected bot" not in out and "q0,q1,q2" in out
            schedule_id = out.split()[0]
            code, out, _ = await run("schedule", "pause", schedule_id, *admin)
            assert code == 0 and "paused" in out
            code, out, _ = await run("schedule", "delete", schedule_id, *admin)
            assert code == 0 and out.strip() == f"schedule {schedule_id} deleted"
            code, _, err = await run("schedule", "delete", schedule_id, *admin)
            assert code == ExitCode.NOT_FOUND and f"no schedule {schedule_id}" in err
            code, out, _ = await run(
                "ladder", "start", "--game", "hart", "--table-size", "3", *admin
            )
            assert code == 0 and "ladder of hart running: 3-seat tables" in out
            code, _, err = await run(
                "ladder", "start", "--game", "hart", "--table-size", "9", *admin
            )
            assert code == ExitCode.USAGE and "table size 9" in err
            code, out, _ = await run("ladder", "stop", "--game", "hart", *admin)
            assert code == 0 and "stopped" in out
            code, _, err = await run("ladder", "stop", "--game", "crossing", *admin)
            assert code == ExitCode.NOT_FOUND and "no ladder for 'crossing'" in err

    asyncio.run(scenario())
