"""One hosted bot's sandboxed process: start it, watch its limits, name why it ended, stop it."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from arena.hosting import cgroups, launcher
from arena.hosting.limits import ExitCause, Limits
from arena.hosting.output import OutputBuffer, drain
from arena.hosting.runtime import Runtime
from arena.hosting.sandbox import SandboxSpec, command_line, environment

WATCH_EVERY = timedelta(milliseconds=200)
"""How often the runner reads a bot's cgroup counters (a refused fork or an OOM kill stops it)."""
REAP_WITHIN = timedelta(seconds=5)
"""How long the runner waits for a killed bot's processes to leave its cgroup before giving up
on removing the cgroup (an empty cgroup left behind costs nothing but a folder)."""


@dataclass(frozen=True, slots=True)
class Ending:
    """How a hosted bot's process ended."""

    cause: ExitCause
    """Why it ended."""
    status: int | None
    """Its exit status (bwrap passes the bot's on; 128+N for a signal N), None when stopped."""

    def describe(self) -> str:
        """One line for the owner's log."""
        if self.cause is ExitCause.CRASHED and self.status is not None and self.status > 128:
            name = _signal_name(self.status - 128)
            return f"crashed: killed by {name}"
        labels = {
            ExitCause.EXITED: f"exited with status {self.status}",
            ExitCause.CRASHED: f"crashed (status {self.status})",
            ExitCause.MEMORY: "killed: used more memory than its limit",
            ExitCause.PROCESSES: "stopped: reached its process limit (fork bomb?)",
            ExitCause.OUTPUT: "stopped: wrote too much to stdout/stderr",
            ExitCause.STOPPED: "stopped by the runner",
        }
        return labels[self.cause]


class HostedProcess:
    """A bot running in its sandbox; `wait()` returns its Ending, `stop()` ends it."""

    def __init__(self, spec: SandboxSpec, runtime: Runtime, bwrap: str) -> None:
        self.spec = spec
        self.argv = command_line(spec, runtime, bwrap)
        self.output = OutputBuffer(spec.limits.output_bytes)
        self.cgroup: cgroups.Cgroup | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._forced: ExitCause | None = None

    @property
    def pid(self) -> int | None:
        """The outer bwrap process's id while running."""
        return None if self._process is None else self._process.pid

    async def start(self, cgroup_base: str = "arena-hosted") -> None:
        """Create the cgroup and start bwrap in it, with the rlimits set."""
        name = f"bot-{secrets.token_hex(6)}"
        self.cgroup = cgroups.create(name, self.spec.limits, base=cgroup_base)
        self._process = await asyncio.create_subprocess_exec(
            *launch_argv(self.spec.limits, self.cgroup, self.argv),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=environment(self.spec),
            start_new_session=True,
        )

    async def wait(self) -> Ending:
        """Run until the process ends (watching its cgroup), then clean up and say why."""
        process = self._process
        assert process is not None, "start() first"
        assert process.stdout is not None
        reading = asyncio.create_task(
            drain(
                process.stdout,
                self.output,
                self.spec.limits.output_kill_bytes,
                lambda: self._kill(ExitCause.OUTPUT),
            )
        )
        watching = asyncio.create_task(self._watch())
        status = await process.wait()
        watching.cancel()
        if self.cgroup is not None:
            self.cgroup.kill()
        with contextlib.suppress(asyncio.CancelledError):
            await watching
        await reading
        ending = self._ending(status)
        if self.cgroup is not None:
            await _emptied(self.cgroup)
            self.cgroup.remove()
        return ending

    def stop(self) -> None:
        """End the bot now (the runner no longer needs it)."""
        self._kill(ExitCause.STOPPED)

    def _kill(self, cause: ExitCause) -> None:
        """SIGKILL the sandbox (bwrap's child dies with it) and every process in its cgroup."""
        if self._forced is None:
            self._forced = cause
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
        if self.cgroup is not None:
            self.cgroup.kill()

    async def _watch(self) -> None:
        """Stop the bot when its cgroup reports an OOM kill or a refused fork."""
        if self.cgroup is None:
            return
        while True:
            await asyncio.sleep(WATCH_EVERY.total_seconds())
            enforced = self.cgroup.enforced()
            if enforced.memory_killed:
                self._kill(ExitCause.MEMORY)
            elif enforced.processes_refused:
                self._kill(ExitCause.PROCESSES)

    def _ending(self, status: int) -> Ending:
        """The Ending for bwrap's exit `status`, the runner's own kill and the cgroup's counters."""
        enforced = self.cgroup.enforced() if self.cgroup is not None else None
        if enforced is not None and enforced.memory_killed:
            return Ending(ExitCause.MEMORY, status)
        if self._forced is not None:
            return Ending(self._forced, None)
        if enforced is not None and enforced.processes_refused and status != 0:
            return Ending(ExitCause.PROCESSES, status)
        if status == 0 or 0 < status <= 128:
            return Ending(ExitCause.EXITED, status)
        return Ending(ExitCause.CRASHED, status)


def launch_argv(limits: Limits, cgroup: cgroups.Cgroup | None, argv: list[str]) -> list[str]:
    """`argv` run through the launcher, which joins `cgroup` and sets the rlimits first (an
    address-space limit of twice the memory limit only where no cgroup could be made)."""
    cpu = int(limits.cpu_time.total_seconds())
    address_space = 2 * limits.memory_bytes if cgroup is None else 0
    procs = [] if cgroup is None else [str(path) for path in cgroup.procs_files]
    numbers = [cpu, limits.open_files, limits.file_bytes, address_space, len(procs)]
    script = str(Path(launcher.__file__))
    return [sys.executable, "-I", "-S", script, *map(str, numbers), *procs, "--", *argv]


async def _emptied(cgroup: cgroups.Cgroup) -> None:
    """Wait (up to REAP_WITHIN) until the killed processes have left `cgroup`."""
    deadline = asyncio.get_running_loop().time() + REAP_WITHIN.total_seconds()
    while not cgroup.is_empty() and asyncio.get_running_loop().time() < deadline:
        cgroup.kill()
        await asyncio.sleep(0.02)


def _signal_name(number: int) -> str:
    """SIGSEGV for 11; "signal N" for a number with no name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
