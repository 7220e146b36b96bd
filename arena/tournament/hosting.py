"""Ask a referee to host a tournament table and wait for its result (the match task calls it)."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import logging
import os
import random
from collections.abc import Sequence
from typing import Any

import grpc

from arena.ops.services import database_url
from arena.referee.clock import Clock
from arena.referee.requests import struct_of
from arena.sdk.tls import ClientTls
from arena.storage import Database, MatchStatus, StorageError
from arena.storage.sql import query
from arena.tournament import rounds as tournaments
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2

POLL_SECONDS = 0.05
"""How often a table's task reads its match's status: a round ends when its last table's task
sees the match end, so this is added to every round. Each read is one indexed row."""
ENDED = (common_pb2.MATCH_STATUS_FINISHED, common_pb2.MATCH_STATUS_ABORTED)
"""Statuses after which a match will not change (an aborted table is then replayed once)."""
ENDED_STATUSES = (MatchStatus.FINISHED, MatchStatus.ABORTED)
"""The same, as stored."""
log = logging.getLogger(__name__)
MATCH_TIMEOUT = float(os.environ.get("ARENA_MATCH_TIMEOUT", "3600"))


async def open_db() -> Database:
    """A small pool on the configured database; use it as `async with await open_db() as db`."""
    return await Database.open(database_url(), min_size=1, max_size=2)


def table_seed(
    tournament_seed: int, salt: str, round_no: int, table_no: int, attempt: int = 1
) -> int:
    """A table's chance seed, derived from the tournament's seed and its stored random salt, so a
    retried task gets the same one and a published table seed reveals nothing about the others."""
    text = f"{salt}:{tournament_seed}:{round_no}:{table_no}"
    if attempt > 1:  # the first attempt keeps the seeds of tables played before replays existed
        text += f":{attempt}"
    digest = hashlib.blake2b(text.encode(), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 2


def referee_addresses() -> list[str]:
    """Where the arena's referees listen: `ARENA_REFEREE_ADDRESS`, one address or several
    separated by commas (any referee hosts or places any match). Reached over TLS when the
    ARENA_TLS* variables say so (arena.sdk.tls)."""
    listed = os.environ.get("ARENA_REFEREE_ADDRESS", "") or "localhost:50051"
    return [a.strip() for a in listed.split(",") if a.strip()] or ["localhost:50051"]


_next_referee = itertools.count(random.randrange(1 << 16))


def referee_address() -> str:
    """The referee to call next: the listed ones in turn, from a random start, so a task
    retried after a referee died calls another one, and workers spread their calls."""
    addresses = referee_addresses()
    return addresses[next(_next_referee) % len(addresses)]


def admin_metadata() -> tuple[tuple[str, str], ...]:
    """The admin credentials for CreateMatch."""
    token = os.environ.get("ARENA_ADMIN_TOKEN", "")
    if not token:
        raise RuntimeError("ARENA_ADMIN_TOKEN is not set: workers cannot create matches")
    return (("authorization", f"Bearer {token}"),)


async def host_table(tournament_id: int, round_no: int, table_no: int) -> dict[str, Any]:
    """Host the table's match and wait until the table is decided: a match that aborts is
    replayed once (a second match at the same table), then scored by the documented rule."""
    # One pass per attempt, and one more that finds the table decided.
    for _ in range(tournaments.MAX_ATTEMPTS + 1):
        async with await open_db() as db:
            info = await tournaments.tournament(db, tournament_id)
            if info is None:
                raise LookupError(f"no tournament {tournament_id}")
            table = await _table(db, tournament_id, round_no, table_no)
            if table.is_over:
                return {"match_id": table.match_id, "ranks": list(table.ranks)}
            names, salt = await _names_and_salt(db, tournament_id)
        # The replay gets a seed of its own: an abort caused by one deal is not dealt again.
        attempt = table.attempt + 1 if table.needs_replay else max(table.attempt, 1)
        request = arena_pb2.CreateMatchRequest(
            game=info.game,
            bots=[names[b] for b in table.bot_ids],
            options=struct_of(dict(info.options)),
            clock=Clock.from_json(dict(info.clock)).to_proto(),
            seed=table_seed(info.seed, salt, round_no, table_no, attempt),
            tournament_id=tournament_id,
            round_no=round_no,
            table_no=table_no,
        )
        await _play(request)
    raise RuntimeError(
        f"tournament {tournament_id} round {round_no} table {table_no} is still undecided "
        f"after {tournaments.MAX_ATTEMPTS} attempts"
    )


async def _table(
    db: Database, tournament_id: int, round_no: int, table_no: int
) -> tournaments.Table:
    for table in await tournaments.tables(db, tournament_id, round_no):
        if table.table_no == table_no:
            return table
    raise LookupError(f"tournament {tournament_id} round {round_no} has no table {table_no}")


async def _names_and_salt(db: Database, tournament_id: int) -> tuple[dict[int, str], str]:
    async with db.transaction("read entrants") as conn:
        cursor = await conn.execute(query("entry_bots"), {"tournament_id": tournament_id})
        names = {int(r[0]): str(r[1]) for r in await cursor.fetchall()}
        cursor = await conn.execute(query("tournament_seed_salt"), {"tournament_id": tournament_id})
        salted = await cursor.fetchone()
    return names, str(salted[0]) if salted else ""


async def _play(request: arena_pb2.CreateMatchRequest) -> None:
    """Create (or find) the match on a referee and wait until it has ended."""
    address = referee_address()
    try:
        async with ClientTls.from_env().aio_channel(address) as channel:
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            match = await api.CreateMatch(request, metadata=admin_metadata(), timeout=30)
    except grpc.aio.AioRpcError as exc:
        if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            raise ConnectionError(f"referee at {address}: {exc.details()}") from None
        raise
    if match.status not in ENDED:
        await _until_ended(match.match_id)


async def _until_ended(match_id: int) -> None:
    """Wait until the match has ended, reading only its status from the database.

    Not through GetMatch: that loads every move, and sixteen tables polling it took as much of
    the referee's CPU as their matches did (bench/tournament.py). The stored status is also the
    truth whichever referee hosts the match, before and after a takeover.
    """
    deadline = asyncio.get_running_loop().time() + MATCH_TIMEOUT
    async with await open_db() as db:
        while True:
            try:
                status = await db.match_status(match_id)
            except StorageError as exc:  # an outage is waited out like a slow match
                log.warning("match %s: cannot read its status (%s); still waiting", match_id, exc)
                status = None
            if status in ENDED_STATUSES:
                return
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"match {match_id} did not finish in time")
            await asyncio.sleep(POLL_SECONDS)


async def connected_bots() -> list[str]:
    """The names of the bots connected to the referee now (a schedule's default entrants)."""
    try:
        async with ClientTls.from_env().aio_channel(referee_address()) as channel:
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            reply = await api.ListBots(arena_pb2.ListBotsRequest(), timeout=30)
    except grpc.aio.AioRpcError as exc:
        raise ConnectionError(f"referee at {referee_address()}: {exc.details()}") from None
    return sorted({bot.name for bot in reply.bots})


async def create_ladder_match(game: str, bots: Sequence[str], clock: Clock) -> int:
    """Ask the referee for an ad-hoc match of `bots` (a ladder's table); its id."""
    request = arena_pb2.CreateMatchRequest(game=game, bots=list(bots), clock=clock.to_proto())
    try:
        async with ClientTls.from_env().aio_channel(referee_address()) as channel:
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            match = await api.CreateMatch(request, metadata=admin_metadata(), timeout=30)
    except grpc.aio.AioRpcError as exc:
        raise ConnectionError(f"referee at {referee_address()}: {exc.details()}") from None
    return int(match.match_id)


async def create_seeded_match(
    game: str, bots: Sequence[str], clock: Clock, seed: int, options: dict[str, Any]
) -> int:
    """Ask the referee for an ad-hoc match with a given seed (a version test's set); its id."""
    request = arena_pb2.CreateMatchRequest(
        game=game, bots=list(bots), clock=clock.to_proto(), seed=seed, options=struct_of(options)
    )
    address = referee_address()
    try:
        async with ClientTls.from_env().aio_channel(address) as channel:
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            match = await api.CreateMatch(request, metadata=admin_metadata(), timeout=30)
    except grpc.aio.AioRpcError as exc:
        raise ConnectionError(f"referee at {address}: {exc.details()}") from None
    return int(match.match_id)
