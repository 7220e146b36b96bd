"""Run the invariant checks on a database and count what they found."""

from __future__ import annotations

from collections.abc import Mapping

import psycopg

# The check modules register their checks as they load.
from arena.chaos import answers, ledger  # noqa: F401
from arena.chaos.checks import REGISTRY, Conn, Context


def run(url: str, context: Context, *, final: bool) -> dict[str, list[str]]:
    """Run every check (`final`) or those that always hold; a check that fails to run reports
    that as its violation."""
    # One REPEATABLE READ snapshot for every check: a check reads several tables (ratings and
    # their changes), and in autocommit each statement saw its own snapshot, so a rating update
    # committing between two of them looked like a broken chain (3 false `rating-chains` in a
    # 30-minute soak, gone at the next check).
    with psycopg.connect(url, connect_timeout=10) as conn:
        conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        conn.read_only = True
        try:
            return run_on(conn, context, final=final)
        finally:
            conn.rollback()


def run_on(conn: Conn, context: Context, *, final: bool) -> dict[str, list[str]]:
    """`run` on an open connection (a test's, inside a transaction it rolls back)."""
    out: dict[str, list[str]] = {}
    for item in REGISTRY:
        if not (final or item.always):
            continue
        try:
            out[item.name] = item.check(conn, context)
        except (ValueError, KeyError, TypeError) as exc:  # a malformed row, reported
            out[item.name] = [f"the check could not run: {exc}"]
    return out


def failed(results: Mapping[str, list[str]]) -> int:
    """How many violations `results` holds."""
    return sum(len(v) for v in results.values())
