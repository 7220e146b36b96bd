"""Table seeds mix in a random salt stored per tournament: one organiser seed, two deals."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from arena.tournament import rounds as tournaments
from arena.tournament.hosting import host_table, table_seed
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN, FAST_CLOCK, playing, register, running_referee

pytestmark = pytest.mark.integration


def test_two_tournaments_with_one_seed_get_different_table_seeds(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", fresh_database_url)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)

    async def scenario() -> list[tuple[int, int]]:
        async with running_referee(fresh_database_url) as server:
            monkeypatch.setenv("ARENA_REFEREE_ADDRESS", server.address)
            names = ["s0", "s1", "s2"]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(seed=i) for i in range(len(names))]
            db = server.referee.db
            hosted = []
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                for name in ("salt-a", "salt-b"):
                    tid = await tournaments.create_tournament(
                        db,
                        name=name,
                        game="hart",
                        bot_names=names,
                        table_size=3,
                        rounds=1,
                        clock=FAST_CLOCK,
                        seed=7,
                    )
                    step = await tournaments.start(db, tid)
                    table = step.tables[0].table_no
                    result = await host_table(tid, 1, table)
                    again = await host_table(tid, 1, table)
                    assert again["match_id"] == result["match_id"]
                    match = await db.match(result["match_id"])
                    assert match is not None
                    hosted.append((tid, match.seed))
            return hosted

    hosted = asyncio.run(scenario())
    first_seed, second_seed = (seed for _, seed in hosted)
    assert first_seed != second_seed, "the same organiser seed dealt the same hands"
    with psycopg.connect(fresh_database_url) as conn:
        for tid, seed in hosted:
            row = conn.execute(
                "SELECT seed_salt::text FROM tournaments WHERE id = %s", (tid,)
            ).fetchone()
            assert row is not None
            # Deterministic for the stored tournament: its seed and salt give the table's seed.
            assert seed == table_seed(7, row[0], 1, 1)
