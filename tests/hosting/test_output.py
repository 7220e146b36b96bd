"""A hosted bot's output: kept line by line with arrival times, bounded per match, and placed at
the decisions of the owner's private replay; end to end through a runner and a real referee."""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from arena.hosting.output import LINE_CHARS, OutputBuffer
from arena.hosting.runner import Runner
from arena.hosting.runtime import detect
from arena.hosting.supervisor import Placement
from arena.hosting.transcripts import bounded
from arena.web.private_replay import SeatStep, place_output, seat_steps, with_output
from tests.hosting.conftest import CGROUP_BASE, SMALL
from tests.hosting.test_hostile_runner import _folder, _hosted
from tests.referee.bots import RandomBot
from tests.referee.harness import (
    _until_connected,
    create_match,
    playing,
    register,
    running_referee,
    wait_finished,
)

CHATTY = Path(__file__).parent / "bots" / "chatty.py"
STARTUP = timedelta(seconds=60)
"""How long the sandboxed bot may take to connect on a loaded machine."""


def test_lines_keep_their_arrival_and_a_last_line_without_newline() -> None:
    ticks = itertools.count(100)
    buffer = OutputBuffer(64, clock=lambda: float(next(ticks)))
    buffer.append(b"one\ntw")
    buffer.append(b"o\r\n" + b"x" * (5 * LINE_CHARS) + b"\nthree")
    buffer.close()
    lines = list(buffer.lines)
    assert [at for at, _ in lines] == [100.0, 101.0, 101.0, 102.0]
    assert [text for _, text in lines][:2] == ["one", "two"]
    assert lines[2][1] == "x" * LINE_CHARS + "..." and lines[3][1] == "three"


def test_a_match_keeps_its_latest_lines_within_the_bound() -> None:
    lines = [(float(i), f"line {i}") for i in range(10)]
    kept, dropped = bounded(lines, limit=3 * len("line 0\n"))
    assert kept == lines[-3:] and dropped == 7


def _step(decision: int) -> SeatStep:
    return SeatStep(decision, "play", "{}", "0", None, None)


def test_each_line_goes_to_the_first_decision_stored_after_it() -> None:
    times = {n: datetime.fromtimestamp(10.0 * n, UTC) for n in range(6)}
    steps = [_step(1), _step(3), _step(5)]
    lines = [(2.0, "early"), (15.0, "for 3"), (29.0, "also 3"), (30.0, "at 3"), (49.0, "5")]
    placed, after = place_output(steps, times, [*lines, (51.0, "bye")])
    assert [s.output for s in placed] == ["early", "for 3\nalso 3\nat 3", "5"]
    assert after == ["bye"]


@pytest.mark.integration
def test_a_hosted_bots_stderr_is_saved_per_match_and_shown_at_its_decisions(
    fresh_database_url: str, tmp_path: Path, bwrap: str
) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            names = ["chatty", "r1", "r2", "r3"]
            tokens = [await register(server.address, name) for name in names]
            db = server.referee.db
            bot_id = await _hosted(db, "chatty", _folder(tmp_path / "up", CHATTY), "python3 bot.py")
            place = Placement(
                server.address, tmp_path / "work", detect(), bwrap, SMALL, CGROUP_BASE
            )
            runner = Runner("run-o", db.pool, place)
            running = asyncio.create_task(runner.run())
            try:
                others = list(zip([RandomBot(seed=i) for i in range(3)], tokens[1:], strict=True))
                async with playing(others, server.address):
                    await _until_connected(server.address, 4, timeout=STARTUP)
                    match_id = await create_match(server.address, "hart", names, seed=4)
                    await wait_finished(server.address, match_id)
                for _ in range(100):  # the runner saves it a second after the end
                    match = await db.match(match_id)
                    assert match is not None
                    steps = {0: await seat_steps(db, match, 0)}
                    placed, tail = await with_output(db, match_id, bot_id, steps)
                    if tail is not None:
                        break
                    await asyncio.sleep(0.1)
            finally:
                running.cancel()
                await asyncio.gather(running, return_exceptions=True)
            assert tail is not None, "the runner saved the match's output"
            seat = next(s.seat for s in match.seating if s.bot_id == bot_id)
            placed, tail = await with_output(
                db, match_id, bot_id, {seat: await seat_steps(db, match, seat)}
            )
            assert placed[seat] and tail.dropped == 0
            for step in placed[seat]:
                assert f"<thinking> about decision {step.decision}" in step.output, step
            other = await with_output(db, match_id, bot_id + 1, {seat: placed[seat]})
            assert other[1] is None, "another bot has no output of this match"

    asyncio.run(scenario())
