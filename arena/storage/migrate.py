"""Schema migrations: bring a database to the current schema, safely from several processes."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from arena.storage.sql import migrations, query, schema

MIGRATION_LOCK = 0x6172656E61
"""The `pg_advisory_xact_lock` key ("arena") held while a migration step runs."""


async def migrate(conn: AsyncConnection[Any], *, fresh_from_schema: bool = True) -> list[int]:
    """Apply pending migrations in order, one transaction each; return the versions applied.

    Every step takes the advisory lock and then re-reads `schema_migrations`, so two processes
    that start at once apply each migration exactly once. A database with no migration recorded
    gets `schema.sql` in one transaction instead (unless `fresh_from_schema` is false), with every
    version recorded as applied.
    """
    applied_now: list[int] = []
    while True:
        async with conn.transaction():
            await conn.execute(query("lock_migrations"), {"key": MIGRATION_LOCK})
            await conn.execute(query("create_schema_migrations"))
            cursor = await conn.execute(query("applied_migrations"))
            applied = {version for (version,) in await cursor.fetchall()}
            pending = [m for m in migrations() if m.version not in applied]
            if not pending:
                return applied_now
            fresh = fresh_from_schema and not applied
            steps = pending if fresh else pending[:1]
            await conn.execute(schema() if fresh else steps[0].sql)
            for step in steps:
                await conn.execute(query("record_migration"), {"version": step.version})
                applied_now.append(step.version)


async def applied_versions(conn: AsyncConnection[Any]) -> list[int]:
    """The migration versions recorded in `schema_migrations` (empty on a blank database)."""
    cursor = await conn.execute(query("migrations_table_exists"))
    row = await cursor.fetchone()
    if row is None or not row[0]:
        return []
    cursor = await conn.execute(query("applied_migrations"))
    return [version for (version,) in await cursor.fetchall()]
