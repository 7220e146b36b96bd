"""What a hosted bot may use, and why a hosted bot's process ended."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import timedelta

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """The resources one hosted bot may use; docs/operations.md states the defaults."""

    memory_bytes: int = 256 * MIB
    """Memory (resident + page cache) of every process of the bot: cgroup memory limit, or an
    address-space rlimit of twice this where no cgroup can be made."""
    processes: int = 64
    """Processes and threads the bot may have at once (cgroup pids.max; no rlimit fallback, since
    RLIMIT_NPROC counts per real user id outside the sandbox)."""
    cpu_share: float = 0.5
    """The CPU the bot may use, in cores (cgroup CPU quota), over every process of the bot."""
    cpu_time: timedelta = timedelta(hours=12)
    """CPU time before the kernel kills the bot (RLIMIT_CPU), a backstop to the quota."""
    open_files: int = 256
    """Open file descriptors per process (RLIMIT_NOFILE)."""
    file_bytes: int = 16 * MIB
    """The largest file the bot may write (RLIMIT_FSIZE)."""
    tmp_bytes: int = 16 * MIB
    """The size of the bot's private, writable /tmp (a tmpfs)."""
    output_bytes: int = 64 * 1024
    """How much of the bot's latest stdout/stderr is kept for its owner."""
    output_kill_bytes: int = 64 * MIB
    """Output after which the bot is stopped (cause OUTPUT): a flood costs the runner CPU."""


class ExitCause(enum.Enum):
    """Why a hosted bot's process ended, as the owner's log and the metrics name it."""

    EXITED = "exited"
    """The program returned from main (any exit status)."""
    CRASHED = "crashed"
    """A signal the runner did not send (segfault, abort, the kernel's CPU-time limit)."""
    MEMORY = "memory"
    """Killed by the kernel for using more memory than its limit."""
    PROCESSES = "processes"
    """Ended after reaching its process limit (a fork bomb is stopped at the limit)."""
    OUTPUT = "output"
    """Stopped by the runner for writing more than Limits.output_kill_bytes."""
    STOPPED = "stopped"
    """Stopped by the runner because it was no longer needed."""
