"""Live matches pushed by Server-Sent Events: a real `arena web` app (uvicorn on a socket), real
Postgres, and the referees' step news on a real Redis, published by the referee's own `Relay`."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
import redis.asyncio as aioredis
import uvicorn

import engines
from arena.referee import step_news
from arena.referee.clock import Clock
from arena.referee.relay import Relay
from arena.sdk.bots import strategy
from arena.sdk.local import play_local
from arena.storage import Database
from arena.storage.identity import arena_identity
from arena.storage.rows import DecisionRow, SeatResult
from arena.tournament import rounds as tournaments
from arena.web import data
from arena.web.app import WebConfig, create_app
from engines.driver import MatchDriver
from tests.web.seed import register
from tests.web.sse import Event, events

pytestmark = pytest.mark.integration

SUBSCRIBERS = 20
BATCHES = itertools.count()


@pytest.fixture(scope="module")
def redis_for_test(redis_server_url: str) -> str:
    return redis_server_url


@dataclass
class Match:
    """A match being logged decision by decision, as its host referee logs it."""

    db: Database
    match_id: int
    rows: list[DecisionRow]
    outcome: Any
    publish: Callable[[int, bool], None]

    async def log(self, number: int, news: bool = True) -> None:
        """Log decision `number`, then (unless the host dies first) publish the news."""
        await self.db.record_decision(self.rows[number])
        if news:
            self.publish(number, False)

    async def finish(self) -> None:
        """Store the outcome and publish the end."""
        results = [
            SeatResult(self.outcome.ranks[i], self.outcome.scores[i], 0)
            for i in range(len(self.outcome.ranks))
        ]
        await self.db.finish_match(self.match_id, self.outcome.termination, results)
        self.publish(len(self.rows) - 1, True)


async def new_match(db: Database, publish: Callable[[int, int, bool], None]) -> Match:
    """A two-seat Hart match played in process, stored as started, its decisions held back."""
    batch = next(BATCHES)
    ids = await register(db, [f"live{n}-{batch}" for n in range(3)])
    bots = list(ids.values())[:3]
    rules = engines.get("hart")
    played = play_local("hart", [strategy("hart", "heuristic") for _ in bots], 7)
    record = played.record
    match_id = await db.create_match("hart", rules.version, dict(record.options), 3, 7, {}, bots)
    await db.start_match(match_id, "referee-a")
    driver = MatchDriver(rules, 3, record.options, 7)
    rows = []
    for number, joint in enumerate(record.moves):
        decision = driver.decision
        assert decision is not None
        driver.play({s: rules.parse_action(s, a) for s, a in joint.items()})
        elapsed = {s: timedelta(milliseconds=5 + s) for s in joint}
        rows.append(DecisionRow(match_id, number, decision.label, dict(joint), elapsed))
    return Match(db, match_id, rows, played.outcome, lambda n, end: publish(match_id, n, end))


@contextlib.asynccontextmanager
async def web(url: str, redis: str, poll: timedelta) -> AsyncIterator[int]:
    """`arena web` on a free port: yields the port."""
    config = WebConfig(
        database_url=url,
        spectator_delay=timedelta(milliseconds=200),
        redis_url=redis,
        live_poll=poll,
    )
    server = uvicorn.Server(uvicorn.Config(create_app(config), port=0, log_level="warning"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield port
    finally:
        server.should_exit = True
        await task


async def collect(port: int, match_id: int, last: int | None = None) -> list[Event]:
    """Every event of the live stream until its end."""
    out = []
    async for event in events("127.0.0.1", port, f"/api/matches/{match_id}/live", last):
        out.append(event)
    return out


class Relays:
    """Two referees' relays (a host and the one that takes the match over)."""

    def __init__(self, url: str, namespace: str) -> None:
        self.clients = [aioredis.Redis.from_url(url) for _ in range(2)]
        self.relays = [
            Relay(c, namespace, f"ref-{i}", lambda _: None) for i, c in enumerate(self.clients)
        ]
        self.namespace = namespace
        self.host = 0

    def publish(self, match_id: int, decision: int, end: bool) -> None:
        relay = self.relays[self.host]
        relay.publish(
            step_news.channel(self.namespace, match_id), step_news.encode(match_id, decision, end)
        )

    async def __aenter__(self) -> Relays:
        for relay in self.relays:
            await relay.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        for relay in self.relays:
            await relay.stop()
        for client in self.clients:
            await client.aclose()


def count_reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the decision reads of every Database in this process."""
    reads = {"decisions": 0}
    original = Database.decisions_from

    async def counted(self: Database, match_id: int, start: int) -> list[DecisionRow]:
        reads["decisions"] += 1
        return await original(self, match_id, start)

    monkeypatch.setattr(Database, "decisions_from", counted)
    return reads


def test_every_subscriber_gets_every_step_with_one_read_per_step(
    migrated_database_url: str, redis_for_test: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = count_reads(monkeypatch)

    async def run() -> None:
        async with await Database.open(migrated_database_url) as db:
            namespace = await arena_identity(db.pool)
            async with Relays(redis_for_test, namespace) as relays:
                match = await new_match(db, relays.publish)
                steps = len(match.rows)
                async with web(migrated_database_url, redis_for_test, timedelta(minutes=5)) as port:
                    watching = [
                        asyncio.create_task(collect(port, match.match_id))
                        for _ in range(SUBSCRIBERS)
                    ]
                    await asyncio.sleep(0.5)  # everyone subscribed; the feed read the setup
                    before = reads["decisions"]
                    for number in range(steps):
                        await match.log(number)
                        await asyncio.sleep(0.01)
                    await match.finish()
                    got = await asyncio.wait_for(asyncio.gather(*watching), 60)
                    during = reads["decisions"] - before
        for received in got:
            kinds = [e.event for e in received]
            assert kinds == ["step"] * (steps + 1) + ["end"], "every step once, in order"
            assert [e.id for e in received[:-1]] == list(range(steps + 1))
            end = received[-1].data
            ranks = {r["seat"]: r["rank"] for r in end["final"]["ranking"]}
            assert tuple(ranks[s] for s in range(3)) == tuple(match.outcome.ranks)
            last = received[-2].data
            assert last["scores"] == [float(s) for s in match.outcome.scores]
            assert any("live0" in line for e in received[1:-1] for line in e.data["events"])
            assert received[5].data["think_ms"], "think times of the step's seats"
        assert 1 <= during <= steps + 1, (
            f"{during} reads for {steps} steps and {SUBSCRIBERS} viewers"
        )

    asyncio.run(run())


def test_a_takeover_and_a_reconnect_lose_no_step(
    migrated_database_url: str, redis_for_test: str
) -> None:
    async def run() -> None:
        async with await Database.open(migrated_database_url) as db:
            namespace = await arena_identity(db.pool)
            async with Relays(redis_for_test, namespace) as relays:
                match = await new_match(db, relays.publish)
                steps = len(match.rows)
                half = steps // 2
                async with web(migrated_database_url, redis_for_test, timedelta(seconds=1)) as port:
                    first: list[Event] = []

                    async def until_half() -> None:
                        path = f"/api/matches/{match.match_id}/live"
                        async for event in events("127.0.0.1", port, path):
                            first.append(event)
                            if event.id == half:
                                return  # the browser drops the connection here

                    watching = asyncio.create_task(until_half())
                    await asyncio.sleep(0.3)
                    for number in range(half):
                        await match.log(number)
                    # The host dies after logging a decision, before its news goes out; another
                    # referee takes the match over and publishes from then on.
                    await match.log(half, news=False)
                    relays.host = 1
                    await asyncio.wait_for(watching, 30)
                    for number in range(half + 1, steps):
                        await match.log(number)
                    await match.finish()
                    rest = await asyncio.wait_for(collect(port, match.match_id, half), 60)
        assert [e.id for e in first] == list(range(half + 1))
        assert [e.id for e in rest if e.event == "step"] == list(range(half + 1, steps + 1))
        assert rest[-1].event == "end"

    asyncio.run(run())


def test_tournament_standings_and_the_home_list_are_pushed(
    migrated_database_url: str, redis_for_test: str
) -> None:
    async def run() -> None:
        async with await Database.open(migrated_database_url) as db:
            batch = next(BATCHES)
            names = [f"cup{n}-{batch}" for n in range(4)]
            await register(db, names)
            tid = await tournaments.create_tournament(
                db, name="live cup", game="hart", bot_names=names, table_size=4, rounds=1,
                clock=Clock(),
            )  # fmt: skip
            await tournaments.start(db, tid)
            expected = json.loads(json.dumps(await data.tournament(db, tid)))
            async with web(migrated_database_url, redis_for_test, timedelta(minutes=5)) as port:
                path = f"/api/tournaments/{tid}/live"
                first = await asyncio.wait_for(anext(events("127.0.0.1", port, path)), 20)
                home = await asyncio.wait_for(
                    anext(events("127.0.0.1", port, "/api/home/live")), 20
                )
                missing = events("127.0.0.1", port, "/api/tournaments/999999/live")
                with pytest.raises(ConnectionError, match="HTTP 404"):
                    await anext(missing)
        assert first.event == "update" and first.id == 1
        assert first.data == expected, "the same JSON as /api/tournaments/{id}"
        assert home.event == "update" and "live" in home.data

    asyncio.run(run())
