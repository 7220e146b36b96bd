"""Where Arena keeps its files on this machine, and what `arena up` left there for other commands.

The data directory is `ARENA_HOME` (`ARENA_DATA_DIR` is the older name and wins when both are set,
since `arena up` sets it for its child processes); without either it is
`$XDG_DATA_HOME/arena`, i.e. `~/.local/share/arena`, whatever the current folder is; for root it
is `/var/lib/arena`, because the embedded Postgres then runs as `nobody`, which cannot enter
`/root`. It holds:

    postgres/          the embedded Postgres cluster (when ARENA_DATABASE_URL is unset)
    redis/             the embedded Redis (when ARENA_REDIS_URL is unset)
    admin-token        the admin token of the stack `arena up` runs (mode 0600)
    stack.json         the running stack: its pid, addresses, ports and log files
    logs/<name>.log    the full logs of the stack's processes
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

ENV_HOME = "ARENA_HOME"
ENV_DATA_DIR = "ARENA_DATA_DIR"
ENV_ADDRESS = "ARENA_ADDRESS"
FALLBACK_ADDRESS = "localhost:50051"
ROOT_DATA_DIR = "/var/lib/arena"


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The data directory: ARENA_DATA_DIR, ARENA_HOME, or ~/.local/share/arena (root:
    /var/lib/arena), as an absolute path."""
    env = os.environ if environ is None else environ
    chosen = env.get(ENV_DATA_DIR) or env.get(ENV_HOME)
    if not chosen and not env.get("XDG_DATA_HOME") and os.geteuid() == 0:
        chosen = ROOT_DATA_DIR
    if not chosen:
        xdg = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local/share")
        chosen = str(Path(xdg) / "arena")
    return Path(chosen).expanduser().resolve()


@dataclass(frozen=True, slots=True)
class StackInfo:
    """What a running `arena up` wrote to `<data dir>/stack.json`."""

    pid: int
    address: str
    referee_metrics_port: int
    worker_metrics_port: int
    beat_metrics_port: int
    logs: str
    database_url: str
    redis_url: str
    referee_addresses: list[str] = field(default_factory=list)
    """Every referee's address (`arena up --referees N`); `address` is the first. Empty in a
    state file written before there could be several."""

    @staticmethod
    def path(folder: Path) -> Path:
        """The state file of the stack in `folder`."""
        return folder / "stack.json"

    def write(self, folder: Path) -> None:
        """Record this stack as running in `folder`."""
        self.path(folder).write_text(json.dumps(asdict(self), indent=1) + "\n")

    @staticmethod
    def clear(folder: Path, pid: int) -> None:
        """Remove the state file if it is this process's."""
        found = StackInfo.read(folder)
        if found is not None and found.pid == pid:
            StackInfo.path(folder).unlink(missing_ok=True)

    @staticmethod
    def read(folder: Path) -> StackInfo | None:
        """The stack recorded in `folder` if its process still runs, else None."""
        try:
            info = StackInfo(**json.loads(StackInfo.path(folder).read_text()))
        except (OSError, ValueError, TypeError):
            return None
        return info if _is_alive(info.pid) else None


def _is_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):  # a zombie counts as gone
        if "State:\tZ" in Path(f"/proc/{pid}/status").read_text():
            return False
    return True


def default_address(environ: Mapping[str, str] | None = None) -> str:
    """ARENA_ADDRESS, else the address of the stack running in the data directory, else :50051."""
    env = os.environ if environ is None else environ
    if env.get(ENV_ADDRESS):
        return env[ENV_ADDRESS]
    running = StackInfo.read(data_dir(env))
    return running.address if running is not None else FALLBACK_ADDRESS


def has_embedded_database(folder: Path) -> bool:
    """Whether `folder` holds an embedded Postgres cluster (made by `arena up` or `arena serve`)."""
    return (folder / "postgres" / "PG_VERSION").exists()
