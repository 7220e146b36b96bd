"""Which host paths a sandboxed bot sees, read-only: the system's /usr and the language runtimes.

A hosted bot's command starts with a program name from PROGRAMS; the runner resolves it to the
runtime it runs under itself (Python: this interpreter's virtual environment, so the Arena SDK,
grpcio and orjson import; Node: the `node` on the runner's PATH, with the runner's copy of the
`arena-bot` package at NODE_MODULES/arena-bot on NODE_PATH, so the Node example needs nothing of
its own). Nothing else of the host is visible: not /etc (beyond the dynamic linker's cache),
/home, /root, /var or ARENA_HOME."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import arena
import engines

PROGRAMS = ("python3", "node")
"""The programs a hosted bot's command may start with."""
SYSTEM_DIRS = ("/usr",)
"""Host folders every sandbox sees read-only (the system's libraries and tools)."""
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")
"""Single host files every sandbox sees read-only, when they exist."""
MERGED_LINKS = ("/bin", "/lib", "/lib64", "/sbin")
"""Top-level folders that are links into /usr on merged-/usr systems (Debian 12)."""
NODE_MODULES = "/opt/arena/node_modules"
"""Where a Node bot finds the runner's `arena-bot` package (NODE_PATH; its own node_modules,
if it uploaded one, comes first)."""
NODE_PROTO = "/opt/arena/proto"
"""Where the package finds arena/v1/*.proto when it was not built with its own copy (a checkout's
sdk/node loads ../../proto; from NODE_MODULES/arena-bot/src that is this folder)."""
ENV_NODE_SDK = "ARENA_NODE_SDK"
"""The environment variable naming the runner's `arena-bot` package folder (`--node-sdk`)."""


class RuntimeMissing(LookupError):
    """A bot's command names a program the runner does not have or does not allow."""


@dataclass(frozen=True, slots=True)
class Runtime:
    """The host paths a sandbox binds read-only, and the executable of each allowed program."""

    executables: dict[str, str]
    """Program name (as in the bot's command) -> absolute host path of the executable."""
    read_only: tuple[str, ...]
    """Host folders and files bound read-only at the same path inside the sandbox."""
    node_binds: tuple[tuple[str, str], ...] = field(default=())
    """(host path, sandbox path) bound read-only for a Node bot: the `arena-bot` package."""

    def executable(self, program: str) -> str:
        """The host path that runs `program`; RuntimeMissing when it is not allowed or absent."""
        try:
            return self.executables[program]
        except KeyError:
            allowed = ", ".join(sorted(self.executables)) or "none"
            raise RuntimeMissing(
                f"a hosted bot's command must start with one of: {allowed} (not {program!r})"
            ) from None


def detect(node_sdk: Path | None = None) -> Runtime:
    """The runtime of this runner: this Python environment, and the node on PATH (if any) with
    the `arena-bot` package at `node_sdk` (default: `default_node_sdk()`)."""
    executables: dict[str, str] = {"python3": str(Path(sys.prefix) / "bin" / "python3")}
    paths: list[str] = [sys.base_prefix, sys.prefix]
    for package in (arena, engines):
        paths.append(str(Path(str(package.__file__)).parent))
    node = shutil.which("node")
    binds: tuple[tuple[str, str], ...] = ()
    if node is not None:
        real = Path(node).resolve()
        executables["node"] = str(real)
        paths.append(str(real.parent.parent))
        binds = node_package_binds(node_sdk or default_node_sdk())
    kept = [path for path in dict.fromkeys(paths) if not _covered(path)]
    kept += [path for path in SYSTEM_FILES if Path(path).exists()]
    return Runtime(executables, tuple(kept), binds)


def default_node_sdk() -> Path | None:
    """The `arena-bot` package a runner gives Node bots: ARENA_NODE_SDK, else this checkout's
    sdk/node once its dependencies are installed (`make install` does), else None."""
    named = os.environ.get(ENV_NODE_SDK)
    if named:
        return Path(named)
    checkout = Path(str(arena.__file__)).resolve().parents[1] / "sdk" / "node"
    return checkout if (checkout / "node_modules" / "@grpc" / "grpc-js").is_dir() else None


def node_package_binds(folder: Path | None) -> tuple[tuple[str, str], ...]:
    """The read-only binds that put the package at `folder` on a Node bot's NODE_PATH; () for
    None; RuntimeMissing when `folder` is not an installed `arena-bot` package."""
    if folder is None:
        return ()
    root = folder.resolve()
    if not (root / "src" / "index.js").is_file() or not (root / "node_modules").is_dir():
        raise RuntimeMissing(
            f"{folder} is not the arena-bot package with its dependencies installed"
            " (sdk/node after `npm ci --omit=dev`)"
        )
    binds = [(str(root), f"{NODE_MODULES}/arena-bot")]
    if not (root / "proto" / "arena" / "v1" / "bot.proto").is_file():
        checkout_proto = root.parent.parent / "proto"
        if not (checkout_proto / "arena" / "v1" / "bot.proto").is_file():
            raise RuntimeMissing(f"{folder} has no proto/ and is not in a checkout beside one")
        binds.append((str(checkout_proto), NODE_PROTO))
    return tuple(binds)


def _covered(path: str) -> bool:
    """Whether `path` is already inside a system folder every sandbox sees."""
    return any(Path(path).is_relative_to(folder) for folder in SYSTEM_DIRS)
