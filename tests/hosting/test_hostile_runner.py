"""Hostile bots uploaded as hosted versions and run by a real runner against a real referee and
Postgres: each is contained, its ending is named in the runner's log of that bot, counted by
cause and kept for its owner (hosted_stops, listed by `arena runners`), and the runner and a
well-behaved hosted bot beside them are unaffected: the good bot keeps its one stream and plays
a match without a strike while the hostile ones churn."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import psycopg
import pytest

from arena.cli.main import main
from arena.hosting.archive import pack
from arena.hosting.runner import Runner
from arena.hosting.runtime import detect
from arena.hosting.supervisor import Placement
from arena.storage import Database
from arena.storage.hosted import Hosted
from arena.storage.runners import Runners
from arena.v1 import arena_pb2, common_pb2
from tests.hosting.conftest import CGROUP_BASE, HOSTILE, SMALL
from tests.referee.bots import RandomBot
from tests.referee.harness import (
    create_match,
    playing,
    register,
    running_referee,
    stub,
    wait_finished,
)

pytestmark = pytest.mark.integration
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python-bot" / "my_bot.py"
EXPECTED = {
    "allocates": "killed: used more memory than its limit",
    "fork_bomb": "stopped: reached its process limit (fork bomb?)",
    "floods_stdout": "stopped: wrote too much to stdout/stderr",
    "segfaults": "crashed: killed by SIGSEGV",
    "exits": "exited with status 3",
    "reads_secrets": "exited with status 0",
    "connects": "exited with status 0",
    "writes_own_files": "exited with status 0",
    "fills_tmp": "exited with status 0",
}
"""Each hostile program (tests/hosting/hostile/) and how the runner's log names its ending."""
REFUSED = {"reads_secrets", "connects", "writes_own_files", "fills_tmp"}
"""The programs that print "refused" for each thing the sandbox kept from them."""


async def _hosted(db: Database, name: str, folder: Path, run: str) -> int:
    """Make `name`'s playing version a hosted, always-on one of `folder`; the bot's id."""
    packed = pack(folder)
    async with db.pool.connection("find bot") as conn:
        row = await (await conn.execute("SELECT id FROM bots WHERE name = %s", [name])).fetchone()
    assert row is not None
    bot_id = int(row[0])
    hosted = Hosted(db.pool)
    await hosted.add_part(bot_id, packed.sha256, 0, packed.content, len(packed.content))
    await hosted.create_version(bot_id, "h1", "", packed.sha256, run, len)
    await Runners(db.pool).set_always_on(bot_id, True)
    return bot_id


def _folder(root: Path, program: Path) -> Path:
    root.mkdir(parents=True)
    shutil.copy(program, root / "bot.py")
    return root


async def _connected_at(address: str, name: str) -> int | None:
    channel, api = stub(address)
    async with channel:
        listed = await api.ListBots(arena_pb2.ListBotsRequest())
    return next((b.connected_at.seconds for b in listed.bots if b.name == name), None)


def test_hostile_uploads_are_contained_named_and_leave_the_runner_and_a_good_bot_alone(
    fresh_database_url: str,
    tmp_path: Path,
    bwrap: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            port = server.address.rpartition(":")[2]
            names = ["good", "r1", "r2", "r3", "busy", *EXPECTED]
            tokens = {name: await register(server.address, name) for name in names}
            db = server.referee.db
            good = _folder(tmp_path / "good", EXAMPLE)
            ids = {"good": await _hosted(db, "good", good, "python3 bot.py")}
            for name in ["busy", *EXPECTED]:
                run = f"python3 bot.py {port}" if name == "connects" else "python3 bot.py"
                ids[name] = await _hosted(
                    db, name, _folder(tmp_path / name, HOSTILE / f"{name}.py"), run
                )
            placement = Placement(
                server.address, tmp_path / "work", detect(), bwrap, SMALL, CGROUP_BASE
            )
            runner = Runner("run-h", db.pool, placement)
            running = asyncio.create_task(runner.run())

            def log_of(name: str) -> list[str]:
                supervisor = runner.bots.get(ids[name])
                return [] if supervisor is None else list(supervisor.log)

            def ended(name: str) -> bool:
                return any(line.endswith(f"h1: {EXPECTED[name]}") for line in log_of(name))

            try:
                deadline = time.monotonic() + 90
                while time.monotonic() < deadline and (
                    await _connected_at(server.address, "good") is None
                    or not all(ended(name) for name in EXPECTED)
                ):
                    assert not running.done(), running
                    await asyncio.sleep(0.2)
                assert not {n: log_of(n)[-3:] for n in EXPECTED if not ended(n)}
                first = await _connected_at(server.address, "good")
                others = [(RandomBot(seed=i), tokens[f"r{i}"]) for i in (1, 2, 3)]
                async with playing(others, server.address):
                    match_id = await create_match(server.address, "hart", names[:4], seed=3)
                    match = await wait_finished(server.address, match_id)
                assert not running.done(), "the runner outlived every hostile bot"
                assert await _connected_at(server.address, "good") == first, "one stream"
                seat = next(seat for seat in match.seats if seat.bot == "good")
                assert match.status == common_pb2.MATCH_STATUS_FINISHED
                assert seat.strikes == 0 and not seat.forfeited, log_of("good")
                supervisors = {name: runner.bots[bot_id] for name, bot_id in ids.items()}
                assert supervisors["busy"].session is not None, "busy runs, under its quota"
            finally:
                running.cancel()
                await asyncio.gather(running, return_exceptions=True)
            assert not runner.bots
            assert supervisors["busy"].log[-1] == "busy h1: stopped by the runner"
            kills = runner.counters.kills
            assert {"memory", "processes", "output", "crashed"} <= set(kills), kills
            for name in REFUSED:
                said = " ".join(supervisors[name].log)
                assert "LEAK" not in said and "refused" in said, (name, said)

    asyncio.run(scenario())
    # Each hostile bot's last end is kept for its owner; a bot the runner stopped has none.
    with psycopg.connect(fresh_database_url) as conn:
        rows = conn.execute(
            "SELECT b.name, s.cause, s.detail, s.runner, s.stops FROM hosted_stops s "
            "JOIN bots b ON b.id = s.bot_id"
        ).fetchall()
    stops = {name: (cause, detail, runner) for name, cause, detail, runner, _ in rows}
    assert set(stops) == set(EXPECTED), stops
    for name, described in EXPECTED.items():
        assert stops[name][1:] == (described, "run-h"), (name, stops[name])
    assert {name: stops[name][0] for name in ("allocates", "fork_bomb", "floods_stdout")} == {
        "allocates": "memory",
        "fork_bomb": "processes",
        "floods_stdout": "output",
    }
    assert stops["segfaults"][0] == "crashed" and stops["exits"][0] == "exited"
    assert all(count >= 1 for *_, count in rows)
    monkeypatch.setenv("ARENA_DATABASE_URL", fresh_database_url)
    capsys.readouterr()
    assert main(["runners"]) == 0
    listed = capsys.readouterr().out
    assert "hosted bots' last stops" in listed, listed
    said = [line for line in listed.splitlines() if line.startswith("  allocates ")]
    assert len(said) == 1 and " memory " in said[0] and "used more memory" in said[0], listed
