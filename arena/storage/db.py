"""The arena's Postgres as one object: its pool, its group-committed log and the referee queries.

Each query lives with its concept (`bots`, `matches`, `leases`, `match_reads`, `decision_log`);
`Database` is the one handle callers hold, so every caller shares one pool and one decision writer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from typing import Any

from psycopg import AsyncConnection

from arena.storage import bots, decision_log, matches
from arena.storage.errors import StorageError
from arena.storage.group_commit import DecisionWriter
from arena.storage.leases import MatchLeases
from arena.storage.match_reads import MatchReads
from arena.storage.migrate import migrate
from arena.storage.pool import Pool, PoolSettings, describe_url
from arena.storage.rows import BotRow, DecisionRow, SeatResult, TableKey
from engines.api import Json, Termination

__all__ = ["Database", "PoolSettings", "describe_url"]


class Database(MatchLeases, MatchReads):
    """Postgres through a pool of async connections; build it with `await Database.open(url)`.

    The match lease calls (`claim_match`, `renew_leases`, ...) come from `MatchLeases`, the
    reads of matches and their logs (`match`, `record`, ...) from `MatchReads`.
    """

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.writer = DecisionWriter(self)
        """The group-commit writer behind `record_decision`."""

    @classmethod
    async def open(
        cls,
        url: str,
        min_size: int = 1,
        max_size: int = 10,
        *,
        timeout: timedelta = timedelta(seconds=10),
        acquire_timeout: timedelta = timedelta(seconds=3),
        idle_in_transaction: timedelta | None = None,
    ) -> Database:
        """Connect a pool to `url` and start the decision writer; `Unavailable` if unreachable.

        `timeout` bounds the first connection; `acquire_timeout` how long a call waits for a
        pooled connection before it fails with `Unavailable`; `idle_in_transaction` (see
        `PoolSettings`) frees the locks of a process paused mid-transaction.
        """
        settings = PoolSettings(min_size, max_size, acquire_timeout, idle_in_transaction)
        database = cls(await Pool.open(url, settings, timeout))
        await database.writer.start()
        return database

    @property
    def url(self) -> str:
        """The connection URL (it may hold a password: never log it, see `describe_url`)."""
        return self.pool.url

    @property
    def available(self) -> bool:
        """False while a probe finds Postgres unreachable (see `Pool.available`)."""
        return self.pool.available

    async def mark_available(self, available: bool) -> None:
        """Record what a probe found (see `Pool.mark_available`)."""
        await self.pool.mark_available(available)

    async def close(self) -> None:
        """Flush the decision writer and close every connection."""
        await self.writer.stop()
        await self.pool.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def transaction(self, what: str) -> AbstractAsyncContextManager[AsyncConnection[Any]]:
        """A connection inside one transaction, committed on success; `what` names it in errors."""
        return self.pool.transaction(what)

    async def migrate(self) -> list[int]:
        """Apply pending migrations (safe from several processes); return the versions applied."""
        async with self.pool.connection("migrate") as conn:
            applied = await migrate(conn)
        if applied:  # connections opened before the enum types existed must register them
            await self.pool.drain()
        return applied

    # Bots (arena.storage.bots)

    async def create_bot(self, name: str, token_hash: bytes, owner_id: int | None = None) -> int:
        """Register a bot by name and token digest; a taken name or token raises `Conflict`."""
        return await bots.create_bot(self.pool, name, token_hash, owner_id)

    async def bot_by_token_hash(self, token_hash: bytes) -> BotRow | None:
        """The bot whose token has this SHA-256 digest, if any."""
        return await bots.bot_by_token_hash(self.pool, token_hash)

    async def bot_by_name(self, name: str) -> BotRow | None:
        """The bot called `name`, if any."""
        return await bots.bot_by_name(self.pool, name)

    async def list_bots(self) -> list[BotRow]:
        """Every bot, by name."""
        return await bots.list_bots(self.pool)

    # A match's life (arena.storage.matches)

    async def create_match(
        self,
        game: str,
        rules_version: int,
        options: Mapping[str, Json],
        seats: int,
        seed: int,
        clock: Mapping[str, Json],
        bot_ids: Sequence[int],
        tournament: TableKey | None = None,
        *,
        rated: bool = False,
        reuse_active: bool = False,
    ) -> int:
        """Create a pending match seating `bot_ids` in order (see `matches.create_match`)."""
        return await matches.create_match(
            self.pool,
            game,
            rules_version,
            options,
            seats,
            seed,
            clock,
            bot_ids,
            tournament,
            rated=rated,
            reuse_active=reuse_active,
        )

    async def start_match(self, match_id: int, host: str, epoch: int = 0) -> None:
        """Mark a match running on `host` (again, when a new host resumes it); `Fenced` unless
        `epoch` is the match's lease epoch."""
        await matches.start_match(self.pool, match_id, host, epoch)

    async def mark_absent_at_start(
        self, match_id: int, seats: Sequence[int], epoch: int = 0
    ) -> None:
        """Note that `seats`' bots were not connected when the match started (fenced)."""
        await matches.mark_absent_at_start(self.pool, match_id, seats, epoch)

    async def record_decision(self, decision: DecisionRow) -> None:
        """Log one decision; returns once it is committed (group commit, see `DecisionWriter`)."""
        await self.writer.write(decision)

    async def finish_match(
        self,
        match_id: int,
        termination: Termination,
        results: Sequence[SeatResult],
        epoch: int = 0,
    ) -> None:
        """Mark a running match finished with one result per seat, in seat order; fenced."""
        await matches.finish_match(self.pool, match_id, termination, results, epoch)

    async def abort_match(self, match_id: int, reason: str, epoch: int | None = None) -> None:
        """Mark a pending or running match aborted, keeping `reason`; fenced if `epoch` is given."""
        await matches.abort_match(self.pool, match_id, reason, epoch)

    async def resign_seats(self, match_id: int, seats: Sequence[int]) -> None:
        """Store that `seats` of a running match resigned: a resumed match keeps them out."""
        await matches.resign_seats(self.pool, match_id, seats)

    async def write_decisions(self, rows: Sequence[DecisionRow]) -> list[StorageError | None]:
        """The decision writer's sink: insert `rows` in one transaction (see `decision_log`)."""
        return await decision_log.write_decisions(self.pool, rows)
