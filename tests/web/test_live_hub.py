"""The live hub without a server: a fake database that counts reads, news given by hand."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from prometheus_client import REGISTRY

import engines
from arena.referee import step_news
from arena.storage.rows import DecisionRow, MatchRow, MatchStatus, SeatRow
from arena.web import data, live, live_json
from arena.web.steps import MatchSteps
from engines.driver import MatchDriver

MATCH = 41


class FakeDb:
    """The decisions logged so far of one Hart match, and the match row."""

    def __init__(self) -> None:
        rules = engines.get("hart")
        driver: MatchDriver[Any, Any] = MatchDriver(rules, 3, {}, 5)
        self.all: list[DecisionRow] = []
        while (decision := driver.decision) is not None:
            for seat in sorted(decision.seats):
                driver.answer(seat, decision.number, driver.space(seat).default())
            driver.advance()
            joint = dict(driver.moves[-1])
            strikes = {0: "timeout: no answer"} if decision.number == 2 else {}
            elapsed = {s: timedelta(milliseconds=7) for s in joint}
            self.all.append(
                DecisionRow(MATCH, decision.number, decision.label, joint, elapsed, strikes)
            )
        self.outcome = rules.outcome(driver.state)
        self.logged = 0
        self.reads = 0
        seating = tuple(
            SeatRow(MATCH, s, s + 1, f"bot{s}", None, None, 0, False, timedelta(0))
            for s in range(3)
        )
        now = datetime.now(UTC)
        self.row = MatchRow(
            MATCH, "hart", rules.version, {}, 3, 5, {}, MatchStatus.RUNNING, None, "ref",
            now, now, None, None, None, None, True, 0, seating,
        )  # fmt: skip

    def log(self, count: int) -> None:
        """`count` more decisions are logged now."""
        for row in self.all[self.logged : self.logged + count]:
            self.all[row.number] = replace(row, created_at=datetime.now(UTC))
        self.logged += count

    async def decisions_from(self, match_id: int, start: int) -> list[DecisionRow]:
        self.reads += 1
        return self.all[start : self.logged]

    async def match(self, match_id: int) -> MatchRow | None:
        return self.row


def hub(db: FakeDb, poll: timedelta = timedelta(minutes=5), room: int = 100) -> live.LiveHub:
    cache = MatchSteps(db, timedelta(0))  # type: ignore[arg-type]
    return live.LiveHub(
        db,  # type: ignore[arg-type]
        cache,
        data.match_summary,
        data.final_ranking,
        poll,
        room,
    )


async def read_all(stream: Any) -> list[bytes]:
    """Every event with an id the stream sent (several may come in one write)."""
    sent = b"".join([chunk async for chunk in stream])
    return [block + b"\n\n" for block in sent.split(b"\n\n") if block.startswith(b"id:")]


def watching() -> float:
    """The live spectators the metrics count."""
    return REGISTRY.get_sample_value("arena_web_live_subscribers", {"kind": "match"}) or 0.0


def test_every_subscriber_gets_every_step_and_each_step_is_read_once() -> None:
    async def run() -> None:
        db = FakeDb()
        center = hub(db)
        streams = [await center.stream(db.row, 0) for _ in range(50)]
        readers = [asyncio.create_task(read_all(s)) for s in streams]
        await asyncio.sleep(0.05)
        assert db.reads == 1, "one read for the setup, whoever watches"
        assert watching() == 50, "the gauge of pushed spectators"
        for _ in range(10):
            db.log(1)
            center.news(step_news.encode(MATCH, db.logged - 1))
            await asyncio.sleep(0.01)
        assert 2 <= db.reads <= 11, "at most one read per step, not one per spectator"
        db.log(len(db.all) - db.logged)
        db.row = replace(db.row, status=MatchStatus.FINISHED)
        center.news(step_news.encode(MATCH, db.logged - 1, True))
        got = await asyncio.wait_for(asyncio.gather(*readers), 10)
        assert all(g == got[0] for g in got)
        assert len(got[0]) == len(db.all) + 2, "the setup, every step, the end"
        assert got[0][-1].split(b"\n")[1] == b"event: end"
        assert b'"problems":{"0":"timeout"}' in got[0][3], "the strike's kind, not its message"
        assert b"no answer" not in b"".join(got[0])
        assert center.feeds == {} and center.subscribers == 0, "feeds go with their spectators"
        assert watching() == 0

    asyncio.run(run())


def test_without_news_the_feed_polls_and_a_resume_starts_after_the_last_seen() -> None:
    async def run() -> None:
        db = FakeDb()
        db.log(4)
        center = hub(db, poll=timedelta(milliseconds=50))
        stream = await center.stream(db.row, 3)  # the browser saw steps 0..2
        reader = asyncio.create_task(read_all(stream))
        await asyncio.sleep(0.1)
        db.log(len(db.all) - db.logged)
        db.row = replace(db.row, status=MatchStatus.FINISHED)  # and no news at all
        got = await asyncio.wait_for(reader, 10)
        assert got[0].startswith(b"id: 3\n")
        assert len(got) == len(db.all) + 2 - 3

    asyncio.run(run())


def test_a_full_hub_says_so_and_junk_news_is_ignored() -> None:
    async def run() -> None:
        db = FakeDb()
        center = hub(db, room=1)
        first = await center.stream(db.row, 0)
        with pytest.raises(live.HubFull):
            await center.stream(db.row, 0)
        center.news(b"not json")
        center.news(b'{"match": "41", "decision": 1, "end": false}')
        await first.aclose()  # type: ignore[attr-defined]
        await center.close()

    asyncio.run(run())


def test_sse_framing() -> None:
    assert live.sse("step", {"a": 1}, 3) == b'id: 3\nevent: step\ndata: {"a":1}\n\n'
    assert step_news.decode(step_news.encode(5, 7, True)) == (5, 7, True)
    with pytest.raises(ValueError):
        step_news.decode(b'{"match": 1}')


def test_live_documents_are_read_once_per_check_and_pushed_when_they_change() -> None:
    async def run() -> None:
        state = {"status": "running", "standings": [1, 2]}
        reads = []

        async def loader() -> dict[str, Any]:
            reads.append(1)
            return dict(state)

        feeds = live_json.JsonFeeds(timedelta(minutes=5))
        streams = [feeds.stream("tournament-1", loader) for _ in range(30)]
        readers = [asyncio.create_task(read_all(s)) for s in streams]
        await asyncio.sleep(0.05)
        assert len(reads) == 1, "one read for thirty spectators"
        feeds.poke()  # a match ended; nothing changed: nothing is sent
        await asyncio.sleep(0.05)
        state["standings"] = [2, 1]
        feeds.poke()
        await asyncio.sleep(0.05)
        state["status"] = "finished"
        feeds.poke()
        got = await asyncio.wait_for(asyncio.gather(*readers), 10)
        assert len(reads) == 4
        assert all(g == got[0] for g in got)
        assert [block.split(b"\n")[0] for block in got[0]] == [b"id: 1", b"id: 2", b"id: 3"]
        assert b'"standings":[2,1]' in got[0][1] and b'"finished"' in got[0][2]
        assert feeds.feeds == {}, "a finished document's feed goes with its spectators"

    asyncio.run(run())
