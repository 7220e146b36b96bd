"""`arena bot always-on NAME on|off` (SetBotAlwaysOn) against a real referee and Postgres: the
owner sets it, another account cannot, a retired bot cannot be turned on, and `arena bot
versions` shows it with the runner that runs the bot."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import psycopg
import pytest

from arena.cli.main import main
from arena.v1 import account_pb2, account_pb2_grpc, arena_pb2, arena_pb2_grpc
from tests.referee.harness import ADMIN_METADATA, running_referee

pytestmark = pytest.mark.integration


def _cli(*argv: str) -> int:
    return main(list(argv))


def _always_on(url: str) -> bool:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT always_on FROM bots WHERE name = 'mybot'").fetchone()
    assert row is not None
    return bool(row[0])


async def _keys(address: str) -> dict[str, str]:
    """ada owns mybot and oldbot (retired); bob owns nothing."""
    keys = {}
    async with grpc.aio.insecure_channel(address) as channel:
        accounts = account_pb2_grpc.AccountServiceStub(channel)
        api = arena_pb2_grpc.ArenaServiceStub(channel)
        for name in ("ada", "bob"):
            made = await accounts.CreateAccount(
                account_pb2.CreateAccountRequest(name=name), metadata=ADMIN_METADATA
            )
            keys[name] = made.key.secret
        ada = (("authorization", f"Bearer {keys['ada']}"),)
        for bot in ("mybot", "oldbot"):
            await api.RegisterBot(arena_pb2.RegisterBotRequest(name=bot), metadata=ada)
        await accounts.RetireBot(account_pb2.BotRef(bot="oldbot"), metadata=ada)
    return keys


def test_the_owner_turns_always_on_on_and_off_and_others_cannot(
    fresh_database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            keys = await _keys(server.address)
            at = ("--address", server.address)

            async def cli(*argv: str, key: str = "ada") -> int:
                return await asyncio.to_thread(_cli, *argv, *at, "--key", keys[key])

            assert await cli("bot", "always-on", "mybot", "on") == 0
            assert _always_on(fresh_database_url)
            with psycopg.connect(fresh_database_url) as conn:
                conn.execute(
                    "INSERT INTO hosted_leases (bot_id, runner, lease_expires) "
                    "SELECT id, 'run-x', now() + interval '1 minute' FROM bots "
                    "WHERE name = 'mybot'"
                )
            assert await asyncio.to_thread(_cli, "bot", "versions", "mybot", *at) == 0
            assert await cli("bot", "always-on", "mybot", "off", key="bob") != 0
            assert _always_on(fresh_database_url), "bob does not own mybot"
            assert await cli("bot", "always-on", "oldbot", "on") != 0
            assert await cli("bot", "always-on", "mybot", "off") == 0
            assert not _always_on(fresh_database_url)

    asyncio.run(scenario())
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out[0] == (
        "mybot is always on, but its playing version is not hosted: nothing runs until you "
        "`arena bot upload` one"
    )
    assert out[1] == "mybot, owned by ada, always on, running on run-x"
    assert out[-1] == "mybot runs on the arena's runners only while a competition needs it"
    err = captured.err.splitlines()
    assert len(err) == 2, err
    assert "belongs to another account" in err[0] and "mybot" in err[0]
    assert "retired" in err[1] and "oldbot" in err[1]
