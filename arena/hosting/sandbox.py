"""The bubblewrap command line that runs one hosted bot, and the refusal when bwrap is missing.

What the sandbox gives the bot (docs/security.md says what it promises and what it does not):
its own user (uid/gid 65534), pid, ipc, uts, network, mount and cgroup namespaces; the runtime
(runtime.Runtime) and the bot's own folder read-only; a private tmpfs /tmp capped in size; a
folder holding the one Unix socket to the runner; an environment of exactly ARENA_ADDRESS and
ARENA_BOT_TOKEN (`environment`), which is also all bwrap itself sees (a Node bot also gets
NODE_PATH, naming the runner's read-only `arena-bot` package). The bot dies with the
runner (--die-with-parent) and cannot reach a terminal (--new-session)."""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from arena.hosting.limits import Limits
from arena.hosting.runtime import MERGED_LINKS, NODE_MODULES, SYSTEM_DIRS, Runtime

BOT_DIR = "/bot"
"""Where the bot's files appear inside the sandbox (read-only; also its working folder)."""
SOCKET_DIR = "/run/arena"
"""Where the folder holding the runner's Unix socket appears inside the sandbox."""
SOCKET_NAME = "referee.sock"
"""The socket's file name in SOCKET_DIR."""
NOBODY = 65534
"""The user and group id the bot runs as inside its user namespace."""
INSTALL_HINT = "install bubblewrap (as root: apt-get install -y bubblewrap, or `make install`)"


class SandboxUnavailable(RuntimeError):
    """This machine cannot sandbox bots (no bwrap): the runner refuses to run hosted bots."""


@dataclass(frozen=True, slots=True)
class SandboxSpec:
    """One hosted bot's sandbox: its files, its command, its socket and its limits."""

    bot_dir: Path
    """The host folder holding the unpacked bot (bound read-only at BOT_DIR)."""
    command: str
    """The bot's command as uploaded, e.g. "python3 bot.py" (run in BOT_DIR)."""
    socket_dir: Path
    """The host folder holding the runner's socket for this bot (bound at SOCKET_DIR)."""
    token: str
    """The bot's token (ARENA_BOT_TOKEN)."""
    limits: Limits = field(default_factory=Limits)
    """Resource limits (the /tmp size is applied here, the rest by cgroups and rlimits)."""

    @property
    def address(self) -> str:
        """ARENA_ADDRESS as the bot sees it: the runner's socket."""
        return f"unix:{SOCKET_DIR}/{SOCKET_NAME}"


def find_bwrap() -> str:
    """The path of bwrap; SandboxUnavailable (one line saying what to do) when it is missing."""
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable(f"cannot run hosted bots: bwrap not found; {INSTALL_HINT}")
    return found


def environment(spec: SandboxSpec) -> dict[str, str]:
    """The whole environment bwrap is started with, and so the bot's: the runner's own is never
    passed (bwrap, pid 1 in the sandbox, would show it in /proc/1/environ), and the token is not
    on bwrap's command line (which `ps` shows to every user of the host)."""
    return {"ARENA_ADDRESS": spec.address, "ARENA_BOT_TOKEN": spec.token}


def command_line(spec: SandboxSpec, runtime: Runtime, bwrap: str) -> list[str]:
    """The full argv: bwrap, its options, then the bot's command with its program resolved."""
    words = shlex.split(spec.command)
    if not words:
        raise ValueError("a hosted bot's command is empty")
    program = runtime.executable(words[0])
    argv = [bwrap, "--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    argv += ["--die-with-parent", "--new-session", "--cap-drop", "ALL", "--hostname", "bot"]
    # The private /tmp comes first: a runtime that lives under /tmp (a checkout there, its
    # .venv) is then bound on top of it instead of being hidden by it.
    argv += ["--size", str(spec.limits.tmp_bytes), "--perms", "1777", "--tmpfs", "/tmp"]
    for folder in SYSTEM_DIRS:
        argv += ["--ro-bind", folder, folder]
    for link in MERGED_LINKS:
        target = Path(link)
        if target.is_symlink():
            argv += ["--symlink", str(target.readlink()), link]
    for path in runtime.read_only:
        argv += ["--ro-bind", path, path]
    if words[0] == "node" and runtime.node_binds:
        for host, inside in runtime.node_binds:
            argv += ["--ro-bind", host, inside]
        argv += ["--setenv", "NODE_PATH", NODE_MODULES]
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--ro-bind", str(spec.bot_dir), BOT_DIR]
    argv += ["--bind", str(spec.socket_dir), SOCKET_DIR]
    argv += ["--remount-ro", "/", "--chdir", BOT_DIR, "--", program, *words[1:]]
    return argv
