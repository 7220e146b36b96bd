"""A running match's `/steps` pages without a server: a spectator who arrives late at a long
match costs the database and the drawing no more than one who came early (a fake database that
counts the queries and the decision rows they return)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

import orjson
import pytest

from arena.storage.rows import DecisionRow, MatchStatus
from arena.web import data, steps
from arena.web.steps import MatchSteps
from tests.web.test_live_hub import MATCH, FakeDb

PAGE = 10
"""Steps per page, as the viewer asks (`limit`); small, so a log spans many pages."""


class CountingDb(FakeDb):
    """The fake database, also counting the decision rows its reads return."""

    def __init__(self) -> None:
        super().__init__()
        self.rows = 0

    async def decisions_from(self, match_id: int, start: int) -> list[DecisionRow]:
        found = await super().decisions_from(match_id, start)
        self.rows += len(found)
        return found


@dataclass(frozen=True)
class Load:
    """What one spectator's first load of the match cost, and what it got."""

    queries: int
    rows: int
    drawn: int
    pages: int
    steps: list[Any]


async def first_load(db: CountingDb, cache: MatchSteps, drawn: list[int]) -> Load:
    """The viewer's first load: page after page from step 0 until it has them all."""
    queries, rows, drew = db.reads, db.rows, len(drawn)
    got: list[Any] = []
    pages = 0
    while True:
        reply = await data.match_steps(db, cache, MATCH, len(got), PAGE)  # type: ignore[arg-type]
        pages += 1
        got += orjson.loads(orjson.dumps(reply["steps"]))
        if len(got) >= reply["total"]:
            break
    return Load(db.reads - queries, db.rows - rows, len(drawn) - drew, pages, got)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every step drawn (`step_json`), by index."""
    calls: list[int] = []
    draw = steps.step_json

    def counting(game: str, step: Any, names: Any) -> dict[str, Any]:
        calls.append(step.index)
        return draw(game, step, names)

    monkeypatch.setattr(steps, "step_json", counting)
    return calls


@pytest.mark.parametrize("logged", [15, 95])
@pytest.mark.parametrize("in_line", [steps.REPLAY_IN_LINE, 10])
def test_a_late_spectator_reads_and_draws_only_what_is_new(
    logged: int, in_line: int, drawn: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(steps, "REPLAY_IN_LINE", in_line)  # 10: long logs replayed on a thread
    monkeypatch.setattr(data, "RECENT_READ", timedelta(hours=1))  # however slow the machine

    async def run() -> None:
        db = CountingDb()
        cache = MatchSteps(db, timedelta(0))  # type: ignore[arg-type]
        db.log(logged)
        early = await first_load(db, cache, drawn)
        assert len(early.steps) == logged + 1, "the setup and every logged decision"
        assert early.rows == logged, "the first look in a process reads the log once"
        assert early.drawn == logged + 1

        db.log(1)
        late = await first_load(db, cache, drawn)
        # Whatever the log's length: one query, the one new decision, one new drawing.
        assert (late.queries, late.rows, late.drawn) == (1, 1, 1)
        assert late.pages == logged // PAGE + 1
        assert late.steps[: logged + 1] == early.steps
        assert [s["index"] for s in late.steps] == list(range(logged + 2))

        # A second on, every page looks for news: more queries, still only the new rows.
        monkeypatch.setattr(data, "RECENT_READ", timedelta(0))
        db.log(1)
        later = await first_load(db, cache, drawn)
        assert (later.queries, later.rows, later.drawn) == (later.pages, 1, 1)

        # What was kept is what a fresh process draws.
        fresh = await first_load(db, MatchSteps(db, timedelta(0)), drawn)  # type: ignore[arg-type]
        assert fresh.steps == later.steps
        assert fresh.rows == logged + 2

    asyncio.run(run())


def test_drawn_steps_are_bounded_and_a_finished_match_keeps_none(drawn: list[int]) -> None:
    async def run() -> None:
        db = CountingDb()
        cache = MatchSteps(db, timedelta(0), drawn_bytes=20_000)  # type: ignore[arg-type]
        db.log(60)
        first = await first_load(db, cache, drawn)
        assert cache._drawn_bytes <= 20_000  # a few steps' worth
        again = await first_load(db, cache, drawn)
        assert again.steps == first.steps, "dropped drawings are drawn again, the same"

        db.log(len(db.all) - db.logged)
        db.row = replace(db.row, status=MatchStatus.FINISHED)
        done = await first_load(db, cache, drawn)
        assert len(done.steps) == len(db.all) + 1
        assert cache._drawn_bytes == 0, "a finished match's pages are cached whole instead"

    asyncio.run(run())
