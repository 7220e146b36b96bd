"""A table's task waits for its match on the stored status, not by polling the referee."""

from __future__ import annotations

import asyncio
import hashlib
import secrets

import pytest

from arena.storage import Database, MatchStatus, SeatResult
from arena.tournament import hosting
from engines.api import Termination


async def _new_match(db: Database) -> int:
    bots = [
        await db.create_bot(
            f"wait-{secrets.token_hex(4)}", hashlib.sha256(secrets.token_bytes(8)).digest()
        )
        for _ in range(2)
    ]
    return await db.create_match("toy", 1, {}, 2, 1, {}, bots)


@pytest.mark.parametrize("ending", ["finished", "aborted"])
def test_the_wait_ends_when_the_stored_match_ends_and_not_before(
    migrated_database_url: str, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", migrated_database_url)

    async def scenario() -> None:
        async with await Database.open(migrated_database_url, max_size=2) as db:
            match_id = await _new_match(db)
            assert await db.match_status(match_id) is MatchStatus.PENDING
            waiting = asyncio.ensure_future(hosting._until_ended(match_id))
            await db.start_match(match_id, "referee-a")
            await asyncio.sleep(hosting.POLL_SECONDS * 4)
            assert not waiting.done(), "the wait ended while the match was still running"
            if ending == "finished":
                await db.finish_match(
                    match_id, Termination.COMPLETED, [SeatResult(1, 1.0), SeatResult(2, 0.0)]
                )
            else:
                await db.abort_match(match_id, "host lost")
            await asyncio.wait_for(waiting, timeout=hosting.POLL_SECONDS * 20)
            assert await db.match_status(match_id) is MatchStatus(ending)
            assert await db.match_status(10**12) is None

    asyncio.run(scenario())
