"""Which arena a database is: the namespace its referees share in Redis.

Several arenas may share one Redis (a test run does: every test has a database of its own), and
their referees must never see each other. An arena is its database, so its Redis keys are named
after the Postgres cluster's system identifier and the database's oid, which no other database
has, whatever URL reached it.
"""

from __future__ import annotations

from psycopg.rows import tuple_row

from arena.storage.errors import StorageError, Unavailable
from arena.storage.pool import Pool

_CLUSTER = "SELECT system_identifier::text FROM pg_control_system()"
_DATABASE = "SELECT oid::text FROM pg_database WHERE datname = current_database()"


async def arena_identity(pool: Pool) -> str:
    """`<cluster>-<database oid>`; the cluster part is `local` for a role not allowed to read
    the cluster's control data (the oid alone then tells the arenas of one server apart)."""
    try:
        found = await pool.one("read the cluster identifier", _CLUSTER, {}, tuple_row)
        cluster = "local" if found is None else str(found[0])
    except Unavailable:
        raise
    except StorageError:  # not allowed to read the control data
        cluster = "local"
    database = await pool.one("read the database oid", _DATABASE, {}, tuple_row)
    return f"{cluster}-{'0' if database is None else database[0]}"
