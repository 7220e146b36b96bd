"""The arena's Postgres: a connection pool, the group-committed action log, the referee queries."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, LiteralString, TypeVar

import psycopg
import psycopg.errors
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import BaseRowFactory, class_row, kwargs_row
from psycopg.types.enum import EnumInfo, register_enum
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from arena.storage.errors import Conflict, NotFound, StorageError, Unavailable, translate
from arena.storage.group_commit import DecisionWriter
from arena.storage.migrate import migrate
from arena.storage.rows import (
    STATUS_ENUMS,
    BotRow,
    DecisionRow,
    MatchRow,
    MatchStatus,
    SeatResult,
    SeatRow,
    TableKey,
)
from arena.storage.sql import query
from engines.api import Json, Termination
from engines.record import Record

T = TypeVar("T")

TOKEN_HASH_BYTES = 32
"""Bots are looked up by a SHA-256 digest of their token; the token itself is never stored."""

_BIGINT = range(-(2**63), 2**63)


def describe_url(url: str) -> str:
    """`user@host:port/dbname` of a connection URL, without its password."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparsable database URL>"
    host = info.get("host") or "localhost"
    port = info.get("port") or "5432"
    user = f"{info['user']}@" if info.get("user") else ""
    return f"{user}{host}:{port}/{info.get('dbname', '')}"


async def _configure(conn: AsyncConnection[Any]) -> None:
    # Status columns load as the Python enums; before `migrate()` the types may not exist yet.
    for name, enum in STATUS_ENUMS.items():
        info = await EnumInfo.fetch(conn, name)
        if info is not None:
            register_enum(info, conn, enum, mapping={member: member.value for member in enum})


class Database:
    """Postgres through a pool of async connections; build it with `await Database.open(url)`."""

    def __init__(
        self,
        pool: AsyncConnectionPool[AsyncConnection[Any]],
        url: str,
        settings: PoolSettings | None = None,
    ) -> None:
        self._pool = pool
        self._url = url
        self._settings = settings or PoolSettings()
        self._where = describe_url(url)
        self.writer = DecisionWriter(self)
        """The group-commit writer behind `record_decision`."""
        self._closing: set[asyncio.Task[None]] = set()
        self.available = True
        """False while a probe (`arena.storage.probe`) finds Postgres unreachable: every call
        then fails at once with `Unavailable` instead of waiting for a connection."""

    @classmethod
    async def open(
        cls,
        url: str,
        min_size: int = 1,
        max_size: int = 10,
        *,
        timeout: timedelta = timedelta(seconds=10),
        acquire_timeout: timedelta = timedelta(seconds=3),
    ) -> Database:
        """Connect a pool to `url` and start the decision writer; `Unavailable` if unreachable.

        `timeout` bounds the first connection; `acquire_timeout` how long a call waits for a
        pooled connection before it fails with `Unavailable`.
        """
        settings = PoolSettings(min_size, max_size, acquire_timeout)
        pool = _pool(url, settings)
        try:
            await pool.open(wait=True, timeout=timeout.total_seconds())
        except PoolTimeout:
            await pool.close()
            reason = await _connect_error(url, timeout)
            raise Unavailable(
                f"cannot connect to Postgres at {describe_url(url)}: {reason}"
            ) from None
        database = cls(pool, url, settings)
        await database.writer.start()
        return database

    @property
    def url(self) -> str:
        """The connection URL (it may hold a password: never log it, see `describe_url`)."""
        return self._url

    async def mark_available(self, available: bool) -> None:
        """Record what a probe found; coming back, the pool is replaced by a fresh one.

        A pool that lost its connections reconnects with exponential backoff (psycopg_pool
        waits 1, 2, 4, ... s between attempts), so after a 40 s outage it would take up to half
        a minute more to notice the database is back. A new pool connects at once.
        """
        if available and not self.available:
            fresh = _pool(self._url, self._settings)
            try:
                await fresh.open(wait=True, timeout=self._settings.acquire_timeout.total_seconds())
            except PoolTimeout:
                await fresh.close()
                return  # not really back yet: the next probe tries again
            old, self._pool = self._pool, fresh
            closing = asyncio.get_running_loop().create_task(old.close(timeout=1.0))
            self._closing.add(closing)
            closing.add_done_callback(self._closing.discard)
        self.available = available

    async def close(self) -> None:
        """Flush the decision writer and close every connection."""
        await self.writer.stop()
        await self._pool.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def _connection(self, what: str) -> AsyncIterator[AsyncConnection[Any]]:
        """A pooled connection (autocommit) whose psycopg errors become `StorageError`s."""
        if not self.available:
            raise Unavailable(f"{what}: the database is unreachable [{self._where}]")
        try:
            async with self._pool.connection() as conn:
                yield conn
        except StorageError:
            raise
        except psycopg.Error as exc:
            error = translate(what, exc)
            if isinstance(error, Unavailable):
                error = Unavailable(f"{error} [{self._where}]")
            raise error from exc

    @asynccontextmanager
    async def transaction(self, what: str) -> AsyncIterator[AsyncConnection[Any]]:
        """A connection inside one transaction, committed on success; `what` names it in errors."""
        async with self._connection(what) as conn, conn.transaction():
            yield conn

    async def _one(
        self, what: str, sql: LiteralString, params: Mapping[str, Any], rows: BaseRowFactory[T]
    ) -> T | None:
        async with self._connection(what) as conn, conn.cursor(row_factory=rows) as cursor:
            await cursor.execute(sql, params)
            return await cursor.fetchone()

    async def _all(
        self, what: str, sql: LiteralString, params: Mapping[str, Any], rows: BaseRowFactory[T]
    ) -> list[T]:
        async with self._connection(what) as conn, conn.cursor(row_factory=rows) as cursor:
            await cursor.execute(sql, params)
            return await cursor.fetchall()

    async def migrate(self) -> list[int]:
        """Apply pending migrations (safe from several processes); return the versions applied."""
        async with self._connection("migrate") as conn:
            applied = await migrate(conn)
        if applied:  # connections opened before the enum types existed must register them
            await self._pool.drain()
        return applied

    # Bots

    async def create_bot(self, name: str, token_hash: bytes) -> int:
        """Register a bot by name and token digest; a taken name or token raises `Conflict`."""
        if not name:
            raise ValueError("a bot needs a name")
        if not isinstance(token_hash, bytes) or len(token_hash) != TOKEN_HASH_BYTES:
            raise ValueError("token_hash must be the 32-byte SHA-256 digest of the token")
        what = f"create bot {name!r}"
        try:
            async with self._connection(what) as conn:
                cursor = await conn.execute(
                    query("create_bot"), {"name": name, "token_hash": token_hash}
                )
                row = await cursor.fetchone()
        except Conflict as exc:
            cause = exc.__cause__
            if isinstance(cause, psycopg.Error) and cause.diag.constraint_name == "bots_name_key":
                raise Conflict(f"{what}: a bot named {name!r} already exists") from cause
            raise Conflict(f"{what}: this token is already registered to another bot") from cause
        assert row is not None
        return int(row[0])

    async def bot_by_token_hash(self, token_hash: bytes) -> BotRow | None:
        """The bot whose token has this SHA-256 digest, if any."""
        return await self._one(
            "find bot by token", query("bot_by_token_hash"), {"token_hash": token_hash}, _BOT
        )

    async def bot_by_name(self, name: str) -> BotRow | None:
        """The bot called `name`, if any."""
        return await self._one(f"find bot {name!r}", query("bot_by_name"), {"name": name}, _BOT)

    async def list_bots(self) -> list[BotRow]:
        """Every bot, by name."""
        return await self._all("list bots", query("list_bots"), {}, _BOT)

    # Matches

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
        """Create a pending match seating `bot_ids` in order; a tournament table gets one match.

        Creating the match of a table that has one returns the existing id (so a retried task
        is harmless), or raises `Conflict` if that match seats other bots. With `reuse_active`,
        an ad-hoc match identical to an unfinished one (game, seed, options, seating) is that one.
        """
        if len(bot_ids) != seats:
            raise ValueError(f"{seats} seats but {len(bot_ids)} bots: {list(bot_ids)}")
        if seed not in _BIGINT:
            raise ValueError(f"seed {seed} does not fit in a signed 64-bit integer")
        table = tournament
        what = f"create {game} match" + (f" at {table}" if table else "")
        params = {
            "game": game,
            "rules_version": rules_version,
            "options": Jsonb(dict(options)),
            "seats": seats,
            "seed": seed,
            "clock": Jsonb(dict(clock)),
            "tournament_id": table.tournament_id if table else None,
            "round_no": table.round_no if table else None,
            "table_no": table.table_no if table else None,
            "rated": rated,
        }
        async with self._connection(what) as conn, conn.transaction():
            if reuse_active and table is None:
                found = await _active_adhoc_match(conn, params, bot_ids)
                if found is not None:
                    return found
            cursor = await conn.execute(query("create_match"), params)
            created = await cursor.fetchone()
            if created is not None:
                match_id = int(created[0])
                await conn.execute(
                    query("create_seats"), {"match_id": match_id, "bot_ids": list(bot_ids)}
                )
                return match_id
            cursor = await conn.execute(query("match_at_table"), params)
            existing = await cursor.fetchone()
            assert existing is not None, "ON CONFLICT skipped the insert, so the row exists"
            match_id = int(existing[0])
            cursor = await conn.execute(query("seat_bot_ids"), {"match_id": match_id})
            seated = await cursor.fetchone()
            if seated is None or list(seated[0]) != list(bot_ids):
                stored = None if seated is None else list(seated[0])
                raise Conflict(f"{what}: match {match_id} is already there, seating {stored}")
            return match_id

    async def start_match(self, match_id: int, host: str) -> None:
        """Mark a match running on `host` (again, when a new host resumes it)."""
        what = f"start match {match_id} on {host!r}"
        async with self._connection(what) as conn:
            cursor = await conn.execute(query("start_match"), {"match_id": match_id, "host": host})
            if await cursor.fetchone() is None:
                raise await _status_error(conn, what, match_id)

    async def record_decision(self, decision: DecisionRow) -> None:
        """Log one decision; returns once it is committed (group commit, see `DecisionWriter`)."""
        await self.writer.write(decision)

    async def claim_matches(self, host: str, *, released_only: bool = False) -> list[int]:
        """Make `host` the host of its own unfinished matches and of released running ones.

        With `released_only`, only matches a stopping referee released are claimed.
        """
        sql = query("claim_released_matches") if released_only else query("claim_matches")
        async with self._connection(f"claim matches for {host!r}") as conn:
            cursor = await conn.execute(sql, {"host": host})
            return sorted(int(row[0]) for row in await cursor.fetchall())

    async def release_matches(self, host: str) -> list[int]:
        """Let go of `host`'s unfinished matches so that any referee may resume them."""
        async with self._connection(f"release matches of {host!r}") as conn:
            cursor = await conn.execute(query("release_matches"), {"host": host})
            return sorted(int(row[0]) for row in await cursor.fetchall())

    async def finish_match(
        self, match_id: int, termination: Termination, results: Sequence[SeatResult]
    ) -> None:
        """Mark a running match finished with one result per seat, in seat order."""
        what = f"finish match {match_id}"
        params = {
            "match_id": match_id,
            "termination": termination.value,
            "seats": list(range(len(results))),
            "ranks": [r.rank for r in results],
            "scores": [r.score for r in results],
            "strikes": [r.strikes for r in results],
            "forfeited": [r.forfeited for r in results],
            "time_used": [r.time_used for r in results],
        }
        async with self._connection(what) as conn, conn.transaction():
            cursor = await conn.execute(query("finish_match"), params)
            row = await cursor.fetchone()
            if row is None:
                raise await _status_error(conn, what, match_id)
            if row[0] != len(results):
                raise ValueError(f"{what}: {row[0]} seats but {len(results)} results")
            await conn.execute(query("record_results"), params)

    async def abort_match(self, match_id: int, reason: str) -> None:
        """Mark a pending or running match aborted, keeping `reason` as its termination."""
        what = f"abort match {match_id}"
        async with self._connection(what) as conn:
            params = {"match_id": match_id, "reason": reason}
            cursor = await conn.execute(query("abort_match"), params)
            if await cursor.fetchone() is None:
                raise await _status_error(conn, what, match_id)

    async def resign_seats(self, match_id: int, seats: Sequence[int]) -> None:
        """Store that `seats` of a running match resigned: a resumed match keeps them out."""
        what = f"resign seats {list(seats)} of match {match_id}"
        async with self._connection(what) as conn:
            params = {"match_id": match_id, "seats": list(seats)}
            cursor = await conn.execute(query("resign_seats"), params)
            if await cursor.fetchone() is None:
                raise await _status_error(conn, what, match_id)

    async def match(self, match_id: int) -> MatchRow | None:
        """A match with its seating, if it exists."""
        what = f"read match {match_id}"
        found = await self._one(what, query("match"), {"match_id": match_id}, _MATCH)
        if found is None:
            return None
        return (await self._seated(what, [found]))[0]

    async def list_matches(
        self,
        status: MatchStatus | None = None,
        game: str | None = None,
        bot_id: int | None = None,
        limit: int = 50,
    ) -> list[MatchRow]:
        """The newest matches (with seating), optionally by status, game and bot."""
        params = {
            "status": None if status is None else status.value,
            "game": game,
            "bot_id": bot_id,
            "limit": limit,
        }
        found = await self._all("list matches", query("list_matches"), params, _MATCH)
        return await self._seated("list matches", found)

    async def _seated(self, what: str, matches: list[MatchRow]) -> list[MatchRow]:
        params = {"match_ids": [m.id for m in matches]}
        seats = await self._all(what, query("seating"), params, _SEAT)
        by_match: dict[int, list[SeatRow]] = {}
        for seat in seats:
            by_match.setdefault(seat.match_id, []).append(seat)
        # MatchStatus(...) also covers a connection opened before another process migrated.
        return [
            replace(m, status=MatchStatus(m.status), seating=tuple(by_match.get(m.id, ())))
            for m in matches
        ]

    async def decisions(self, match_id: int) -> list[DecisionRow]:
        """The logged decisions of a match, by number."""
        what = f"read decisions of match {match_id}"
        return await self._all(what, query("decisions"), {"match_id": match_id}, _DECISION)

    async def record(self, match_id: int) -> Record:
        """The replayable record of a match: its setup and the joint actions logged so far."""
        match = await self.match(match_id)
        if match is None:
            raise NotFound(f"record of match {match_id}: no such match")
        moves = await self.decisions(match_id)
        for index, move in enumerate(moves):
            if move.number != index:
                raise StorageError(f"record of match {match_id}: decision {index} is missing")
        return Record(
            game=match.game,
            rules_version=match.rules_version,
            options=dict(match.options),
            seats=match.seats,
            seed=match.seed,
            moves=tuple(move.joint for move in moves),
        )

    async def decision_counts(self, match_ids: Sequence[int]) -> dict[int, int]:
        """Match id -> decisions logged so far, for each of `match_ids` (0 when none)."""
        params = {"match_ids": list(match_ids)}
        async with self._connection("count decisions") as conn:
            cursor = await conn.execute(query("decision_counts"), params)
            counted = {int(r[0]): int(r[1]) for r in await cursor.fetchall()}
        return {m: counted.get(m, 0) for m in match_ids}

    async def rating_changes(self, match_ids: Sequence[int]) -> dict[tuple[int, int], float]:
        """(match id, bot id) -> the Elo change that match gave that bot, for rated matches."""
        params = {"match_ids": list(match_ids)}
        async with self._connection("read rating changes") as conn:
            cursor = await conn.execute(query("match_rating_changes"), params)
            return {(int(r[0]), int(r[1])): float(r[2]) for r in await cursor.fetchall()}

    # The sink of the decision writer

    async def write_decisions(self, rows: Sequence[DecisionRow]) -> list[StorageError | None]:
        """Insert `rows` in one transaction; per row, the error that refused it (or None).

        When a row is refused (duplicate number, unknown match) the batch is retried row by row
        under savepoints, so one bad row fails only its own writer. A row identical to one
        already logged counts as written (a retry whose first commit was not acknowledged).
        """
        values = [_decision_params(row) for row in rows]
        async with self._connection(f"write {len(rows)} decisions") as conn:
            try:
                async with (
                    conn.transaction(),
                    conn.cursor() as cursor,
                    cursor.copy(query("copy_decisions")) as copy,
                ):
                    for params in values:
                        await copy.write_row([params[column] for column in _DECISION_COLUMNS])
                return [None] * len(rows)
            except (psycopg.errors.IntegrityError, psycopg.errors.DataError):
                pass
            outcomes: list[StorageError | None] = []
            async with conn.transaction():
                for row, params in zip(rows, values, strict=True):
                    outcomes.append(await _insert_decision(conn, row, params))
            return outcomes


@dataclass(frozen=True, slots=True)
class PoolSettings:
    """How a `Database` sizes its pool and how long a call waits for a connection."""

    min_size: int = 1
    max_size: int = 10
    acquire_timeout: timedelta = timedelta(seconds=3)
    """A call that gets no connection within this fails with `Unavailable`."""


CONNECT_OPTIONS: dict[str, Any] = {
    "autocommit": True,
    "connect_timeout": 3,
    # Notice a peer that vanished without closing (TCP only; ignored on Unix sockets).
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 3,
    "keepalives_count": 3,
    "tcp_user_timeout": 15_000,
}
"""libpq settings of pooled connections: fail in seconds, not minutes, once Postgres is gone."""


def _pool(url: str, settings: PoolSettings) -> AsyncConnectionPool[AsyncConnection[Any]]:
    return AsyncConnectionPool(
        url,
        min_size=settings.min_size,
        max_size=settings.max_size,
        open=False,
        kwargs=dict(CONNECT_OPTIONS),
        configure=_configure,
        check=AsyncConnectionPool.check_connection,
        timeout=settings.acquire_timeout.total_seconds(),
        name="arena",
    )


_DECISION_COLUMNS = ("match_id", "number", "label", "joint", "elapsed", "strikes")
_BOT = class_row(BotRow)
_MATCH = class_row(MatchRow)
_SEAT = class_row(SeatRow)
_DECISION = kwargs_row(DecisionRow.from_db)


def _decision_params(row: DecisionRow) -> dict[str, Any]:
    params = row.to_db()
    for column in ("joint", "elapsed", "strikes"):
        params[column] = Jsonb(params[column])
    return params


async def _insert_decision(
    conn: AsyncConnection[Any], row: DecisionRow, params: Mapping[str, Any]
) -> StorageError | None:
    what = f"record decision {row.number} of match {row.match_id}"
    try:
        async with conn.transaction():
            await conn.execute(query("insert_decision"), params)
        return None
    except psycopg.errors.UniqueViolation as exc:
        cursor = await conn.execute(query("decision"), params)
        stored = await cursor.fetchone()
        if stored is not None and (stored[2], stored[3]) == (params["label"], params["joint"].obj):
            return None
        return Conflict(f"{what}: a different decision {row.number} is already logged ({exc})")
    except (psycopg.errors.IntegrityError, psycopg.errors.DataError) as exc:
        return translate(what, exc)


async def _active_adhoc_match(
    conn: AsyncConnection[Any], params: Mapping[str, Any], bot_ids: Sequence[int]
) -> int | None:
    await conn.execute(query("lock_adhoc_match"), params)
    cursor = await conn.execute(query("active_adhoc_match"), {**params, "bot_ids": list(bot_ids)})
    row = await cursor.fetchone()
    return None if row is None else int(row[0])


async def _status_error(conn: AsyncConnection[Any], what: str, match_id: int) -> StorageError:
    cursor = await conn.execute(query("match_status"), {"match_id": match_id})
    row = await cursor.fetchone()
    if row is None:
        return NotFound(f"{what}: no such match")
    status = row[0].value if isinstance(row[0], MatchStatus) else row[0]
    return Conflict(f"{what}: the match is {status}")


async def _connect_error(url: str, timeout: timedelta) -> str:
    try:
        conn = await psycopg.AsyncConnection.connect(
            url, connect_timeout=max(1, int(timeout.total_seconds()))
        )
    except psycopg.Error as exc:
        text = str(exc).strip()
        return text.splitlines()[0] if text else type(exc).__name__
    await conn.close()
    return f"no connection within {timeout.total_seconds():g} s"
