"""Benchmark: the match viewer's steps API on a long stored match, cold and cached.

A Double Crossing match of 3 heuristic bots (several hundred decisions) is stored in a fresh
embedded Postgres (or ARENA_DATABASE_URL's server, in a throwaway database). It prints the time
of the first `/api/matches/ID/steps` page set (replay from the record, public views, boards drawn),
of the same request again (cached steps, boards drawn), and, as the baseline measured in the same
run, the bare engine replay of the same record with no storage, views or HTML.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from starlette.testclient import TestClient

import engines
from arena.storage import Database
from arena.storage.embedded import EmbeddedPostgres
from arena.web.app import WebConfig, create_app
from engines.replay import replay
from tests.dbfixtures import create_database, drop_database, migrate_database, with_database
from tests.web.seed import register, store_match

GAME, SEATS, SEED = "crossing", 3, 12


def fetch_all(client: TestClient, match_id: int) -> tuple[float, int]:
    """Seconds to fetch every step page by page, and the number of steps."""
    began = time.perf_counter()
    count = 0
    while True:
        reply = client.get(f"/api/matches/{match_id}/steps?from={count}&limit=500").json()
        count += len(reply["steps"])
        if count >= reply["total"]:
            return time.perf_counter() - began, count


def main() -> None:
    folder = None
    server = os.environ.get("ARENA_DATABASE_URL")
    embedded = None
    if server:
        server = with_database(server, "postgres")
    else:
        folder = Path(tempfile.mkdtemp(prefix="arena-bench-web-"))
        folder.chmod(0o755)
        embedded = EmbeddedPostgres(folder, database="postgres", fsync=False)
        server = embedded.start()
    url = create_database(server)
    try:
        migrate_database(url)

        async def seed() -> int:
            async with await Database.open(url) as db:
                ids = await register(db, [f"bench-{i}" for i in range(SEATS)])
                stored = await store_match(db, GAME, list(ids.items()), SEED)
                return stored.match_id

        match_id = asyncio.run(seed())
        app = create_app(WebConfig(database_url=url, spectator_delay=timedelta(0)))
        with TestClient(app) as client:
            cold, steps = fetch_all(client, match_id)
            warm, _ = fetch_all(client, match_id)
            record = asyncio.run(_record(url, match_id))
        rules = engines.get(GAME)
        began = time.perf_counter()
        replay(rules, record)
        bare = time.perf_counter() - began
        print(f"{GAME} match of {steps - 1} decisions, {steps} steps served")
        print(f"  first view (replay + views + boards): {cold * 1000:8.1f} ms")
        print(f"  again (cached steps, boards drawn):   {warm * 1000:8.1f} ms")
        print(f"  baseline, bare engine replay:         {bare * 1000:8.1f} ms")
        print(f"  ratio to the baseline: first view {cold / bare:.1f}x, again {warm / bare:.1f}x")
    finally:
        drop_database(server, url)
        if embedded is not None:
            embedded.stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


async def _record(url: str, match_id: int) -> engines.Record:
    async with await Database.open(url) as db:
        return await db.record(match_id)


if __name__ == "__main__":
    main()
