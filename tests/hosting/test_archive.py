"""Packing a bot's folder: deterministic bytes, and refusals of what a bot never needs."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from arena.hosting import archive
from arena.hosting.archive import ArchiveError, check, pack, unpack


def _folder(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "bot.py").write_text("print('hi')\n")
    (root / "lib" / "util.py").write_text("X = 1\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o700)
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "bot.pyc").write_bytes(b"junk")
    (root / "lib" / "alias.py").symlink_to("util.py")
    return root


def test_the_same_folder_packs_to_the_same_bytes(tmp_path: Path) -> None:
    first = pack(_folder(tmp_path / "a"))
    second_root = _folder(tmp_path / "b")
    os.utime(second_root / "bot.py", (1, 1))
    second = pack(second_root)
    assert first.content == second.content and first.sha256 == second.sha256
    with tarfile.open(fileobj=io.BytesIO(first.content)) as tar:
        names = tar.getnames()
    assert names == ["bot.py", "lib", "lib/alias.py", "lib/util.py", "run.sh"]


def test_unpacking_gives_the_files_back(tmp_path: Path) -> None:
    packed = pack(_folder(tmp_path / "a"))
    target = tmp_path / "out"
    target.mkdir()
    assert unpack(packed.content, target) == packed.unpacked_bytes == check(packed.content)
    assert (target / "lib" / "alias.py").read_text() == "X = 1\n"
    assert os.access(target / "run.sh", os.X_OK)


def test_links_out_and_fifos_are_refused(tmp_path: Path) -> None:
    root = _folder(tmp_path / "a")
    (root / "shadow").symlink_to("/etc/shadow")
    with pytest.raises(ArchiveError, match="links outside"):
        pack(root)
    (root / "shadow").unlink()
    (root / "up").symlink_to("../../x")
    with pytest.raises(ArchiveError, match="links outside"):
        pack(root)
    (root / "up").unlink()
    os.mkfifo(root / "pipe")
    with pytest.raises(ArchiveError, match="not a file"):
        pack(root)


def test_a_folder_over_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 10)
    with pytest.raises(ArchiveError, match="holds more than"):
        pack(_folder(tmp_path / "a"))


def _tar(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data else None)
    return buffer.getvalue()


def _info(
    name: str, kind: bytes = tarfile.REGTYPE, size: int = 0, link: str = ""
) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.size, info.linkname = kind, size, link
    return info


@pytest.mark.parametrize(
    ("member", "why"),
    [
        (_info("/etc/passwd"), "outside it"),
        (_info("../escape"), "outside it"),
        (_info("a/../../escape"), "outside it"),
        (_info("link", tarfile.SYMTYPE, link="/etc/shadow"), "links outside"),
        (_info("d/link", tarfile.SYMTYPE, link="../../x"), "links outside"),
        (_info("dev", tarfile.CHRTYPE), "not a file"),
        (_info("hard", tarfile.LNKTYPE, link="bot.py"), "not a file"),
    ],
)
def test_hostile_archives_are_refused(member: tarfile.TarInfo, why: str, tmp_path: Path) -> None:
    content = _tar((member, b""))
    with pytest.raises(ArchiveError, match=why):
        check(content)
    with pytest.raises(ArchiveError):
        unpack(content, tmp_path)
    assert not list(tmp_path.iterdir())


def test_a_zip_bomb_is_refused_while_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 1000)
    content = _tar((_info("big", size=5000), b"\0" * 5000))
    with pytest.raises(ArchiveError, match="unpacks to over"):
        check(content)
    with pytest.raises(ArchiveError, match="does not unpack"):
        check(b"not a gzip")


def test_the_node_examples_link_to_the_sdk_is_left_out_and_no_other(tmp_path: Path) -> None:
    sdk = tmp_path / "sdk" / "node"
    sdk.mkdir(parents=True)
    root = tmp_path / "bot"
    (root / "node_modules").mkdir(parents=True)
    (root / "bot.js").write_text("require('arena-bot');\n")
    (root / "node_modules" / "arena-bot").symlink_to(sdk, target_is_directory=True)
    with tarfile.open(fileobj=io.BytesIO(pack(root).content)) as tar:
        assert tar.getnames() == ["bot.js", "node_modules"]
    (root / "node_modules" / "grpc").symlink_to(sdk, target_is_directory=True)
    with pytest.raises(ArchiveError, match="node_modules/grpc links outside"):
        pack(root)
