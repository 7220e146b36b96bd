"""The SQL text shipped with the package: named queries, the schema and the numbered migrations."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import LiteralString

_HEADER = re.compile(r"^--\s*name:\s*(?P<name>[a-z_][a-z0-9_]*)\s*$")
_MIGRATION = re.compile(r"^(?P<version>\d{4})_(?P<name>[a-z0-9_]+)\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    """One numbered migration file."""

    version: int
    name: str
    sql: LiteralString


def _read(*parts: str) -> LiteralString:
    # Package files are SQL we wrote, literal by construction. (mypy treats LiteralString as str;
    # a checker that enforces it would need a cast here and in `parse_queries`.)
    return resources.files("arena.storage").joinpath(*parts).read_text("utf-8")


def parse_queries(text: str) -> dict[str, LiteralString]:
    """Split a `queries.sql` text at its `-- name:` headers (leading comment lines dropped)."""
    queries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        header = _HEADER.match(line)
        if header:
            name = header["name"]
            if name in queries:
                raise ValueError(f"query {name!r} is defined twice")
            current = queries[name] = []
        elif current is not None and (current or not line.startswith("--")):
            current.append(line)
    parsed: dict[str, LiteralString] = {
        name: "\n".join(body).strip() for name, body in queries.items()
    }
    empty = [name for name, body in parsed.items() if not body]
    if empty:
        raise ValueError(f"queries without a body: {', '.join(empty)}")
    return parsed


@cache
def queries() -> dict[str, LiteralString]:
    """Every named query: `queries.sql` and the package's other query files (not schema.sql)."""
    files = sorted(
        entry.name
        for entry in resources.files("arena.storage").iterdir()
        if entry.name.endswith(".sql") and entry.name != "schema.sql"
    )
    found: dict[str, LiteralString] = {}
    where: dict[str, str] = {}
    for file in files:
        for name, text in parse_queries(_read(file)).items():
            if name in found:
                raise ValueError(f"query {name!r} is defined in both {where[name]} and {file}")
            found[name], where[name] = text, file
    return found


def query(name: str) -> LiteralString:
    """One named query; a missing name raises `KeyError` naming it."""
    try:
        return queries()[name]
    except KeyError:
        raise KeyError(f"no query named {name!r} in the .sql files of arena/storage") from None


@cache
def schema() -> LiteralString:
    """The full current schema (`schema.sql`), for a fresh database."""
    return _read("schema.sql")


@cache
def migrations() -> tuple[Migration, ...]:
    """The numbered migrations in version order; versions must run 1, 2, 3, ... without gaps."""
    found: list[Migration] = []
    for entry in resources.files("arena.storage").joinpath("migrations").iterdir():
        match = _MIGRATION.match(entry.name)
        if match:
            sql = _read("migrations", entry.name)
            found.append(Migration(int(match["version"]), match["name"], sql))
    found.sort(key=lambda m: m.version)
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise ValueError(f"migrations must be numbered 1, 2, 3, ... without gaps, got {versions}")
    return tuple(found)
