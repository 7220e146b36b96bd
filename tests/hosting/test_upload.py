"""`arena bot upload` against a real referee and Postgres: pieces, the version, the archive."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import grpc
import psycopg
import pytest

from arena.cli.main import main
from arena.hosting.archive import PART_BYTES, pack
from arena.storage import Database
from arena.storage.hosted import Hosted
from arena.v1 import account_pb2, account_pb2_grpc, arena_pb2, arena_pb2_grpc
from tests.referee.harness import ADMIN_METADATA, running_referee

pytestmark = pytest.mark.integration


def _bot_folder(root: Path) -> Path:
    root.mkdir()
    (root / "bot.py").write_text("print('hello')\n")
    # Incompressible bytes so the archive takes several pieces.
    (root / "weights.bin").write_bytes(hashlib.shake_256(b"seed").digest(3 * PART_BYTES))
    return root


def _cli(*argv: str) -> int:
    return main(list(argv))


def test_upload_makes_a_hosted_active_version_stored_once(
    fresh_database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    folder = _bot_folder(tmp_path / "mybot")

    async def scenario() -> None:
        async with running_referee(fresh_database_url) as server:
            async with grpc.aio.insecure_channel(server.address) as channel:
                accounts = account_pb2_grpc.AccountServiceStub(channel)
                made = await accounts.CreateAccount(
                    account_pb2.CreateAccountRequest(name="ada"), metadata=ADMIN_METADATA
                )
                key = made.key.secret
                api = arena_pb2_grpc.ArenaServiceStub(channel)
                await api.RegisterBot(
                    arena_pb2.RegisterBotRequest(name="mybot"),
                    metadata=(("authorization", f"Bearer {key}"),),
                )
            where = ("--address", server.address, "--key", key)
            upload = ("bot", "upload", "mybot", str(folder), "--run", "python3 bot.py")
            assert await asyncio.to_thread(_cli, *upload, "--label", "h1", *where) == 0
            assert await asyncio.to_thread(_cli, *upload, "--label", "h2", *where) == 0
            assert await asyncio.to_thread(_cli, "bot", "versions", "mybot", *where[:2]) == 0
            db = await Database.open(fresh_database_url)
            try:
                stored = await Hosted(db.pool).archive(pack(folder).sha256)
            finally:
                await db.close()
            assert stored == pack(folder).content

    asyncio.run(scenario())
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("mybot now plays as hosted version h1")
    listed = [line for line in out if "hosted:" in line or "author-run" in line]
    assert listed[0].startswith("* h2") and "hosted: python3 bot.py" in listed[0]
    assert listed[1].startswith("  h1") and "hosted: python3 bot.py" in listed[1]
    assert listed[2].startswith("  v1") and "author-run" in listed[2]
    with psycopg.connect(fresh_database_url) as conn:
        archives = conn.execute("SELECT count(*) FROM bot_archives").fetchone()
        parts = conn.execute("SELECT count(*) FROM bot_archive_parts").fetchone()
    assert archives == (1,) and parts == (0,), "stored once, by content; no pieces left"


def test_a_bad_command_or_folder_is_one_line(
    fresh_database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    folder = _bot_folder(tmp_path / "mybot")
    (folder / "escape").symlink_to("/etc/shadow")

    async def scenario() -> list[int]:
        async with running_referee(fresh_database_url) as server:
            where = ("--address", server.address, "--key", "test-admin-token")
            return [
                await asyncio.to_thread(
                    _cli, "bot", "upload", "nobody", str(folder), "--run", "python3 b.py", *where
                ),
                await asyncio.to_thread(
                    _cli, "bot", "upload", "x", str(tmp_path / "none"), "--run", "node b", *where
                ),
            ]

    codes = asyncio.run(scenario())
    err = capsys.readouterr().err.splitlines()
    assert all(code != 0 for code in codes)
    assert len(err) == 2, err
    assert "escape links outside the folder" in err[0]
    assert "is not a folder" in err[1]
