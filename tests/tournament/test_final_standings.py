"""A finished tournament's standings are final: a later match of its bots does not reorder them.

Two bots tie on points and on the opponents' score; the last tie-break is the rating as it stood
when the tournament's last round closed, so an ad-hoc match afterwards, which swaps their current
ratings, changes neither the web's standings nor the CLI's.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from starlette.testclient import TestClient

import engines
from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.rows import SeatResult, TableKey
from arena.tournament import rounds as tournaments
from arena.web.app import WebConfig, create_app
from engines.api import Termination
from tests.referee.harness import running_referee
from tests.web.seed import register

pytestmark = pytest.mark.integration
GAME = "crossing"


async def play(db: Database, bots: list[int], table: TableKey | None = None) -> int:
    """A finished match of `bots` where the first seat wins (rated at once when ad hoc)."""
    rules = engines.get(GAME)
    match_id = await db.create_match(GAME, rules.version, {}, len(bots), 1, {}, bots, table)
    await db.start_match(match_id, "test")
    results = [SeatResult(1 if seat == 0 else 2, 1.0 - seat, 0) for seat in range(len(bots))]
    await db.finish_match(match_id, Termination.COMPLETED, results)
    if table is None:
        await tournaments.rate_match(db, match_id)
    return match_id


async def finished_tournament(db: Database) -> tuple[int, list[str]]:
    """A one-round tournament of four bots at two tables; the two winners tie."""
    ids = await register(db, ["ann", "bob", "cat", "dan"])
    tid = await tournaments.create_tournament(
        db, name="final", game=GAME, bot_names=list(ids), table_size=2, rounds=1, clock=Clock()
    )
    step = await tournaments.start(db, tid)
    winners = []
    for table in step.tables:
        await play(db, list(table.bot_ids), TableKey(tid, 1, table.table_no))
        winners.append(table.bot_ids[0])
    closed = await tournaments.close_round(db, tid, 1)
    assert closed.finished
    names = {v: k for k, v in ids.items()}
    return tid, [names[w] for w in winners]


def web_standings(url: str, tid: int) -> list[str]:
    """The bots of the web's standings, best first (API and page agree)."""
    config = WebConfig(database_url=url, spectator_delay=timedelta(0), fresh_for=timedelta(0))
    with TestClient(create_app(config)) as client:
        reply = client.get(f"/api/tournaments/{tid}").json()
        page = client.get(f"/tournaments/{tid}").text
    order = [s["bot"] for s in reply["standings"]]
    assert sorted(order, key=lambda name: page.index(f'/bots/{name}"')) == order
    return order


def cli_standings(address: str, tid: int) -> list[str]:
    """The bots of `arena tournament show`, best first."""
    where = ["--address", address]
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "tournament", "show", str(tid), *where],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 0, done.stderr
    return [line.split()[1] for line in done.stdout.splitlines()[3:] if line.strip()]


def test_a_later_match_does_not_reorder_a_finished_tournament(fresh_database_url: str) -> None:
    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            db = server.referee.db
            tid, winners = await finished_tournament(db)
            web_before = await asyncio.to_thread(web_standings, fresh_database_url, tid)
            cli_before = await asyncio.to_thread(cli_standings, server.address, tid)
            assert web_before == cli_before and set(web_before[:2]) == set(winners)
            ids = {b.name: b.id for b in await db.list_bots()}
            # The second of the tied winners beats the first: their current ratings swap.
            second, first = web_before[1], web_before[0]
            for _ in range(3):
                await play(db, [ids[second], ids[first]])
            board = await tournaments.leaderboard(db, GAME, 10)
            assert board[0]["name"] == second, "the ad-hoc matches changed the ratings"
            assert await asyncio.to_thread(web_standings, fresh_database_url, tid) == web_before
            assert await asyncio.to_thread(cli_standings, server.address, tid) == cli_before

    asyncio.run(scenario())
