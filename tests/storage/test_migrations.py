"""Migrations: applied once and in order, safe from two processes, equal to the fresh schema."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from arena.storage import Database
from arena.storage.migrate import applied_versions, migrate
from arena.storage.sql import migrations, query

ALL = [m.version for m in migrations()]

CATALOG: dict[str, Any] = {
    "relations": """
        SELECT c.relname, c.relkind FROM pg_class AS c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
        ORDER BY 1""",
    "columns": """
        SELECT c.relname, a.attname,
               row_number() OVER (PARTITION BY c.relname ORDER BY a.attnum) AS position,
               format_type(a.atttypid, a.atttypmod), a.attnotnull,
               pg_get_expr(d.adbin, d.adrelid) AS default, a.attidentity, a.attgenerated
        FROM pg_attribute AS a
        JOIN pg_class AS c ON c.oid = a.attrelid
        LEFT JOIN pg_attrdef AS d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
          AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY 1, 3""",
    "constraints": """
        SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid)
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace
        ORDER BY 1, 2""",
    "indexes": """
        SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'
        ORDER BY 1, 2""",
    "enums": """
        SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder)
        FROM pg_type AS t JOIN pg_enum AS e ON e.enumtypid = t.oid
        WHERE t.typnamespace = 'public'::regnamespace
        GROUP BY 1 ORDER BY 1""",
    "sequences": """
        SELECT sequencename, data_type, start_value, increment_by FROM pg_sequences
        WHERE schemaname = 'public' ORDER BY 1""",
    "functions": """
        SELECT proname, pg_get_functiondef(oid) FROM pg_proc
        WHERE pronamespace = 'public'::regnamespace ORDER BY 1""",
    "triggers": """
        SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger
        WHERE NOT tgisinternal ORDER BY 1, 2""",
}


def catalog(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """The public schema's catalog: relations, columns, constraints, indexes, types, ..."""
    with psycopg.connect(url) as conn:
        return {
            name: [tuple(_hashable(v) for v in row) for row in conn.execute(sql).fetchall()]
            for name, sql in CATALOG.items()
        }


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def differences(a: dict[str, list[tuple[Any, ...]]], b: dict[str, list[tuple[Any, ...]]]) -> str:
    """A readable list of what one catalog has and the other lacks."""
    lines = []
    for section in CATALOG:
        only_a = sorted(set(a[section]) - set(b[section]), key=repr)
        only_b = sorted(set(b[section]) - set(a[section]), key=repr)
        lines += [f"{section}: only in schema.sql: {row}" for row in only_a]
        lines += [f"{section}: only in migrations: {row}" for row in only_b]
    return "\n".join(lines)


async def _migrate(url: str, *, fresh_from_schema: bool = True) -> list[int]:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        return await migrate(conn, fresh_from_schema=fresh_from_schema)


def test_migrated_schema_equals_the_fresh_schema(database_factory: Callable[[], str]) -> None:
    fresh, migrated = database_factory(), database_factory()
    assert asyncio.run(_migrate(fresh, fresh_from_schema=True)) == ALL
    assert asyncio.run(_migrate(migrated, fresh_from_schema=False)) == ALL
    a, b = catalog(fresh), catalog(migrated)
    assert all(a[section] for section in ("relations", "columns", "constraints", "indexes"))
    assert a == b, differences(a, b)


def test_the_catalog_comparison_sees_a_drift(database_factory: Callable[[], str]) -> None:
    fresh, migrated = database_factory(), database_factory()
    asyncio.run(_migrate(fresh))
    asyncio.run(_migrate(migrated, fresh_from_schema=False))
    with psycopg.connect(migrated, autocommit=True) as conn:
        conn.execute("ALTER TABLE seats ALTER COLUMN strikes DROP DEFAULT")
    found = differences(catalog(fresh), catalog(migrated))
    assert "columns: only in schema.sql: ('seats', 'strikes'" in found


def test_migrate_twice_applies_nothing_the_second_time(fresh_database_url: str) -> None:
    async def scenario() -> tuple[list[int], list[int], list[int]]:
        db = await Database.open(fresh_database_url)
        try:
            first, second = await db.migrate(), await db.migrate()
            async with await psycopg.AsyncConnection.connect(fresh_database_url) as conn:
                return first, second, await applied_versions(conn)
        finally:
            await db.close()

    assert asyncio.run(scenario()) == (ALL, [], ALL)


def test_an_old_database_gets_only_the_newer_migrations(fresh_database_url: str) -> None:
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        conn.execute(query("create_schema_migrations"))
        conn.execute(migrations()[0].sql)
        conn.execute(query("record_migration"), {"version": 1})
        conn.execute("INSERT INTO bots (name, token_hash) VALUES ('old', sha256('t'))")
    assert asyncio.run(_migrate(fresh_database_url)) == ALL[1:]
    with psycopg.connect(fresh_database_url) as conn:
        assert conn.execute("SELECT name FROM bots").fetchall() == [("old",)]
        assert conn.execute("SELECT count(*) FROM tournaments").fetchone() == (0,)


@pytest.mark.parametrize("fresh_from_schema", [True, False])
def test_two_processes_migrating_at_once_apply_each_version_once(
    fresh_database_url: str, fresh_from_schema: bool
) -> None:
    async def both() -> list[list[int]]:
        return list(
            await asyncio.gather(
                *(_migrate(fresh_database_url, fresh_from_schema=fresh_from_schema) for _ in "ab")
            )
        )

    applied = asyncio.run(both())
    assert sorted(applied[0] + applied[1]) == ALL
    with psycopg.connect(fresh_database_url) as conn:
        rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
    assert [v for (v,) in rows] == ALL


def test_a_blank_database_has_no_applied_versions(fresh_database_url: str) -> None:
    async def read() -> list[int]:
        async with await psycopg.AsyncConnection.connect(fresh_database_url) as conn:
            return await applied_versions(conn)

    assert asyncio.run(read()) == []
