"""An arena at schema 0009 (before accounts) with bots, matches and tournaments upgrades in place
to 0010: everything old still reads, the old tokens still play, the admin token is the admin."""

from __future__ import annotations

import asyncio

import grpc
import psycopg
import pytest
from psycopg.types.json import Jsonb

from arena.referee.auth import token_hash
from arena.storage.sql import migrations
from arena.v1 import account_pb2, account_pb2_grpc, arena_pb2, arena_pb2_grpc, common_pb2
from tests.referee.bots import RandomBot
from tests.referee.harness import (
    ADMIN_METADATA,
    FAST_CLOCK,
    playing,
    running_referee,
    wait_finished,
)

pytestmark = pytest.mark.integration

TOKENS = {"old-a": "arena_old-token-of-a-000000000000000000000000", "old-b": "arena_old-b-1111"}


def _at_0009(url: str) -> None:
    """Apply migrations 1-9 only, then store what an arena of that age holds."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, "
            "applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for step in migrations():
            if step.version > 9:
                break
            with conn.transaction():
                conn.execute(step.sql)
                conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", [step.version])
        ids = {}
        for name, token in TOKENS.items():
            row = conn.execute(
                "INSERT INTO bots (name, token_hash) VALUES (%s, %s) RETURNING id",
                [name, token_hash(token)],
            ).fetchone()
            assert row is not None
            ids[name] = row[0]
        tournament = conn.execute(
            "INSERT INTO tournaments (name, game, table_size, rounds, starts_at, seed, clock) "
            "VALUES ('old cup', 'crossing', 2, 1, now(), 7, %s) RETURNING id",
            [Jsonb(FAST_CLOCK.to_json())],
        ).fetchone()
        assert tournament is not None
        for bot_id in ids.values():
            conn.execute(
                "INSERT INTO entries (tournament_id, bot_id) VALUES (%s, %s)",
                [tournament[0], bot_id],
            )
        match = conn.execute(
            "INSERT INTO matches (game, rules_version, seats, seed, status, termination, "
            "finished_at, clock) VALUES ('crossing', 1, 2, 3, 'finished', 'normal', now(), %s) "
            "RETURNING id",
            [Jsonb(FAST_CLOCK.to_json())],
        ).fetchone()
        assert match is not None
        for seat, bot_id in enumerate(ids.values()):
            conn.execute(
                "INSERT INTO seats (match_id, seat, bot_id, rank, score) "
                "VALUES (%s, %s, %s, %s, 1)",
                [match[0], seat, bot_id, seat + 1],
            )
            conn.execute(
                "INSERT INTO ratings (bot_id, game, rating, games) VALUES (%s, 'crossing', %s, 1)",
                [bot_id, 1500 + 10 * (1 - seat)],
            )
        conn.execute("INSERT INTO ladders (game, table_size) VALUES ('hart', 3)")


def test_an_arena_at_0009_upgrades_and_still_reads_and_plays(fresh_database_url: str) -> None:
    _at_0009(fresh_database_url)

    async def scenario() -> None:
        async with (
            running_referee(fresh_database_url) as server,  # migrates to 0010 on start
            grpc.aio.insecure_channel(server.address) as channel,
        ):
            api = arena_pb2_grpc.ArenaServiceStub(channel)
            accounts = account_pb2_grpc.AccountServiceStub(channel)
            old = await api.GetMatch(arena_pb2.GetMatchRequest(match_id=1))
            assert [(s.bot, s.rank, s.version) for s in old.seats] == [
                ("old-a", 1, "v1"),
                ("old-b", 2, "v1"),
            ]
            cup = await api.GetTournament(arena_pb2.GetTournamentRequest(tournament_id=1))
            assert cup.name == "old cup"
            board = await api.GetLeaderboard(arena_pb2.GetLeaderboardRequest(game="crossing"))
            assert [e.bot for e in board.entries] == ["old-a", "old-b"]
            stats = await api.GetBotStats(arena_pb2.GetBotStatsRequest(bot="old-a"))
            assert stats.games[0].matches == 1
            # The operator's admin token is the first admin account, which owns the old bots.
            me = await accounts.WhoAmI(account_pb2.WhoAmIRequest(), metadata=ADMIN_METADATA)
            assert (me.name, me.role) == ("admin", account_pb2.ROLE_ADMIN)
            versions = await accounts.ListBotVersions(account_pb2.BotRef(bot="old-a"))
            assert (versions.owner, [v.label for v in versions.versions]) == ("admin", ["v1"])
            # The old tokens still play.
            bots = [RandomBot(seed=i) for i in range(2)]
            async with playing(list(zip(bots, TOKENS.values(), strict=True)), server.address):
                made = await api.CreateMatch(
                    arena_pb2.CreateMatchRequest(game="crossing", bots=list(TOKENS), seed=9),
                    metadata=ADMIN_METADATA,
                )
                done = await wait_finished(server.address, made.match_id)
            assert done.status == common_pb2.MATCH_STATUS_FINISHED
            assert all(s.version == "v1" for s in done.seats)
        with psycopg.connect(fresh_database_url) as conn:
            owners = conn.execute(
                "SELECT DISTINCT a.name FROM bots b JOIN accounts a ON a.id = b.owner_id "
                "UNION ALL SELECT a.name FROM tournaments t JOIN accounts a ON a.id = t.owner_id "
                "UNION ALL SELECT a.name FROM ladders l JOIN accounts a ON a.id = l.owner_id"
            ).fetchall()
        assert owners == [("admin",)] * 3

    asyncio.run(scenario())
