"""The shipped SQL: named queries parse, the code names only real queries, migrations in order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import arena.storage
from arena.storage.sql import migrations, parse_queries, queries, query, schema

STORAGE = Path(arena.storage.__file__).parent


def test_parse_queries_splits_at_headers_and_drops_descriptions() -> None:
    text = """-- file comment
-- name: one
-- What it does.
SELECT 1;

-- name: two_lines
SELECT a
  FROM b; -- trailing note
"""
    assert parse_queries(text) == {
        "one": "SELECT 1;",
        "two_lines": "SELECT a\n  FROM b; -- trailing note",
    }


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;", "defined twice"),
        ("-- name: a\n-- only a description\n", "without a body"),
    ],
)
def test_parse_queries_rejects_mistakes(text: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        parse_queries(text)


def test_every_query_named_in_the_code_exists_and_every_query_is_used() -> None:
    root = STORAGE.parents[1]
    callers = [
        *STORAGE.glob("*.py"),
        *(root / "arena").rglob("*.py"),
        *(root / "workers").glob("*.py"),
    ]
    named = set()
    for source in callers:
        named |= set(re.findall(r'query\("([a-z_]+)"\)', source.read_text()))
    assert named, "the pattern found no query() calls"
    assert named <= set(queries()), f"missing from the .sql files: {named - set(queries())}"
    assert set(queries()) <= named, f"unused queries: {set(queries()) - named}"


def test_missing_query_names_the_file() -> None:
    with pytest.raises(
        KeyError, match=r"no query named 'nope' in the \.sql files of arena/storage"
    ):
        query("nope")


def test_placeholders_are_named_parameters_only() -> None:
    for name, text in queries().items():
        assert not re.search(r"%s|\{[a-z_]\w*\}", text), (
            f"{name} uses positional or format placeholders"
        )


def test_migrations_are_numbered_from_one_and_match_the_files() -> None:
    found = migrations()
    assert [m.version for m in found] == list(range(1, len(found) + 1))
    assert [f"{m.version:04d}_{m.name}.sql" for m in found] == sorted(
        p.name for p in (STORAGE / "migrations").glob("*.sql")
    )
    assert found[0].name == "initial" and found[1].name == "tournaments"
    assert "CREATE TABLE matches" in schema()
