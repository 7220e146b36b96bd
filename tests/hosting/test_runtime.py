"""Which `arena-bot` package a runner gives Node bots, and where the sandbox shows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.hosting.runtime import (
    ENV_NODE_SDK,
    NODE_MODULES,
    NODE_PROTO,
    RuntimeMissing,
    default_node_sdk,
    node_package_binds,
)


def _package(root: Path, own_proto: bool) -> Path:
    folder = root / "sdk" / "node"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "index.js").write_text("module.exports = {};\n")
    (folder / "node_modules").mkdir()
    proto = (folder if own_proto else root) / "proto" / "arena" / "v1"
    proto.mkdir(parents=True)
    (proto / "bot.proto").write_text('syntax = "proto3";\n')
    return folder


def test_a_checkouts_package_gets_the_checkouts_proto_beside_it(tmp_path: Path) -> None:
    folder = _package(tmp_path, own_proto=False)
    assert node_package_binds(folder) == (
        (str(folder), f"{NODE_MODULES}/arena-bot"),
        (str(tmp_path / "proto"), NODE_PROTO),
    )


def test_a_built_package_brings_its_own_proto(tmp_path: Path) -> None:
    folder = _package(tmp_path, own_proto=True)
    assert node_package_binds(folder) == ((str(folder), f"{NODE_MODULES}/arena-bot"),)
    assert node_package_binds(None) == ()


def test_a_folder_that_is_not_the_installed_package_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeMissing, match="is not the arena-bot package"):
        node_package_binds(tmp_path)
    folder = _package(tmp_path, own_proto=False)
    (tmp_path / "proto" / "arena" / "v1" / "bot.proto").unlink()
    with pytest.raises(RuntimeMissing, match="has no proto/"):
        node_package_binds(folder)


def test_the_environment_names_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_NODE_SDK, str(tmp_path))
    assert default_node_sdk() == tmp_path
