"""Three referees on three hosts of their own (network namespaces joined by a bridge): bots reach
them at three addresses, matches mix them, and the kill of a host's referee is survived."""

from __future__ import annotations

import asyncio
import signal
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from arena.ops.services import EmbeddedRedis
from tests.referee import netns
from tests.referee.fleet import Fleet
from tests.referee.test_scale_out import (
    TAKEOVER_LIMIT,
    bots_spread,
    check_played_cleanly,
    create,
    get_match,
    registered,
    until_decisions,
    until_ended,
)

pytestmark = pytest.mark.integration

POSTGRES_SOCKETS = "/var/run/postgresql"


def _over_unix_socket(url: str) -> str | None:
    """`url` through Postgres's Unix socket, which every namespace shares; None if none works."""
    if str(conninfo_to_dict(url).get("host", "")).startswith("/"):
        return url
    local = make_conninfo(url, host=POSTGRES_SOCKETS)
    try:
        with psycopg.connect(local, connect_timeout=3):
            return local
    except psycopg.Error:
        return None


def test_referees_on_separate_hosts_survive_the_kill_of_one(fresh_database_url: str) -> None:
    why = netns.available()
    if why:
        pytest.skip(why)
    database_url = _over_unix_socket(fresh_database_url)
    if database_url is None:
        pytest.skip(f"Postgres is not reachable over a Unix socket in {POSTGRES_SOCKETS}")
    with tempfile.TemporaryDirectory() as folder, netns.Hosts(3) as hosts:
        redis = EmbeddedRedis(Path(folder))
        redis.start()
        fleet = Fleet(
            database_url,
            f"unix://{redis.socket_path}?db=0",
            3,
            Path(folder),
            hosts=[(ip, hosts.wrap(i)) for i, ip in enumerate(hosts.ips)],
        )

        async def scenario() -> None:
            await fleet.start_all()
            listed = await fleet.until_live(3)
            assert {r.address for r in listed} == {f"{ip}:50051" for ip in hosts.ips}
            names, tokens = await registered(fleet, 8)
            async with bots_spread(fleet, names, tokens, failover=True):
                ids = [
                    await create(fleet.addresses[0], "hart", names[0:4], seed=1),
                    await create(fleet.addresses[1], "hart", names[4:8], seed=2),
                ]
                await until_decisions(fleet, ids[0], 10)
                before = await get_match(fleet, ids[0])
                logged = len(fleet.decisions(ids[0]))
                fleet.signal(fleet.index_of(before.host), signal.SIGKILL)
                killed_at = time.monotonic()
                while len(fleet.decisions(ids[0])) <= logged + 1:
                    assert time.monotonic() - killed_at < TAKEOVER_LIMIT, fleet.log_tail()
                    await asyncio.sleep(0.05)
                assert (await get_match(fleet, ids[0])).host != before.host
                await until_ended(fleet, ids)
            await check_played_cleanly(fleet, ids)

        try:
            asyncio.run(scenario())
        except BaseException:
            print(fleet.log_tail())
            raise
        finally:
            fleet.stop_all()
            redis.stop()
