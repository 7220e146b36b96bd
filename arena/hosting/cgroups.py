"""A hosted bot's cgroup: memory, process and CPU limits and what the kernel enforced.

cgroup v2 is used when /sys/fs/cgroup is a unified hierarchy we may write; otherwise the v1
controllers memory, pids and cpu (as on our machines). Where neither can be written, `create`
returns None and the sandbox falls back to rlimits (limits.Limits says which)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from arena.hosting.limits import Limits

ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpu")
CPU_PERIOD_US = 100_000
SWEEP_WITHIN = timedelta(seconds=5)
"""How long `sweep` waits for a left-over cgroup's processes to die before moving on."""


@dataclass(frozen=True, slots=True)
class Enforced:
    """What the kernel stopped the bot from doing, read from the cgroup's counters."""

    memory_killed: bool
    """The out-of-memory killer ran inside the bot's cgroup."""
    processes_refused: bool
    """A fork or clone was refused at the process limit."""


class Cgroup:
    """One bot's cgroup (v2: one folder; v1: one folder per controller)."""

    def __init__(self, folders: dict[str, Path], unified: bool) -> None:
        self.folders = folders
        self.unified = unified

    @property
    def procs_files(self) -> list[Path]:
        """The cgroup.procs file of every folder: a process joins by writing its pid to each (the
        launcher does, before it becomes bwrap)."""
        return [folder / "cgroup.procs" for folder in self.folders.values()]

    def enforced(self) -> Enforced:
        """What the kernel enforced so far."""
        if self.unified:
            events = _keyed(self.folders["memory"] / "memory.events")
            pids = _keyed(self.folders["pids"] / "pids.events")
            return Enforced(events.get("oom_kill", 0) > 0, pids.get("max", 0) > 0)
        oom = _keyed(self.folders["memory"] / "memory.oom_control")
        pids = _keyed(self.folders["pids"] / "pids.events")
        return Enforced(oom.get("oom_kill", 0) > 0, pids.get("max", 0) > 0)

    def memory_bytes(self) -> int:
        """Memory the bot's processes use now."""
        name = "memory.current" if self.unified else "memory.usage_in_bytes"
        return _number(self.folders["memory"] / name)

    def kill(self) -> None:
        """SIGKILL every process left in the cgroup (a bot's orphans outlive its sandbox's init
        only if they escaped the pid namespace, which they cannot; this is the belt to that)."""
        for path in self.procs_files:
            with contextlib.suppress(OSError):
                for line in path.read_text().split():
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(line), signal.SIGKILL)

    def is_empty(self) -> bool:
        """Whether no process is left in the cgroup (killed ones linger until reaped)."""
        for path in self.procs_files:
            with contextlib.suppress(OSError):
                if path.read_text().strip():
                    return False
        return True

    def remove(self) -> None:
        """Delete the cgroup's folders (they must be empty of processes)."""
        for folder in self.folders.values():
            with contextlib.suppress(OSError):
                folder.rmdir()


def create(
    name: str, limits: Limits, base: str = "arena-hosted", root: Path = ROOT
) -> Cgroup | None:
    """A new cgroup `base/name` with `limits` written, or None when cgroups cannot be written."""
    try:
        if (root / "cgroup.controllers").exists():
            return _create_v2(root, base, name, limits)
        return _create_v1(root, f"{base}/{name}", limits)
    except OSError:
        return None


def sweep(base: str, root: Path = ROOT) -> int:
    """Remove the bot cgroups left under `base` (a runner's own folder) by a runner that was
    SIGKILLed: kill what still runs in each, wait for it to leave, delete the folder. Returns how
    many bot cgroups were removed; called when a runner starts, before it runs any bot."""
    if (root / "cgroup.controllers").exists():
        tops = {"": root / base}
    else:
        tops = {name: root / name / base for name in V1_CONTROLLERS}
    names = {
        child.name
        for top in tops.values()
        if top.is_dir()
        for child in top.iterdir()
        if child.is_dir()
    }
    removed = 0
    for name in sorted(names):
        folders = {key: top / name for key, top in tops.items() if (top / name).is_dir()}
        if not folders:
            continue
        cgroup = Cgroup(folders, unified="" in tops)
        deadline = time.monotonic() + SWEEP_WITHIN.total_seconds()
        while not cgroup.is_empty() and time.monotonic() < deadline:
            cgroup.kill()
            time.sleep(0.02)
        cgroup.remove()
        removed += not any(folder.exists() for folder in folders.values())
    return removed


def remove_base(base: str, root: Path = ROOT) -> None:
    """Delete a runner's own cgroup folder, if it is empty of bot cgroups (at its stop)."""
    unified = (root / "cgroup.controllers").exists()
    tops = [root / base] if unified else [root / name / base for name in V1_CONTROLLERS]
    for top in tops:
        with contextlib.suppress(OSError):
            top.rmdir()


def _create_v2(root: Path, base: str, name: str, limits: Limits) -> Cgroup:
    """A cgroup v2 folder with memory.max, pids.max and cpu.max written (every folder on the way
    down from `root` delegates the three controllers to its children)."""
    parent = root
    for part in Path(base).parts:
        parent = parent / part
        parent.mkdir(exist_ok=True)
        (parent / "cgroup.subtree_control").write_text("+memory +pids +cpu")
    folder = parent / name
    folder.mkdir(exist_ok=True)
    (folder / "memory.max").write_text(str(limits.memory_bytes))
    with contextlib.suppress(OSError):
        (folder / "memory.swap.max").write_text("0")
    (folder / "pids.max").write_text(str(limits.processes))
    quota = max(1000, int(limits.cpu_share * CPU_PERIOD_US))
    (folder / "cpu.max").write_text(f"{quota} {CPU_PERIOD_US}")
    return Cgroup({"memory": folder, "pids": folder, "cpu": folder}, unified=True)


def _create_v1(root: Path, relative: str, limits: Limits) -> Cgroup:
    """One folder in each v1 controller with its limit written."""
    folders = {name: root / name / relative for name in V1_CONTROLLERS}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    memory = folders["memory"]
    (memory / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
    with contextlib.suppress(OSError):
        (memory / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
    with contextlib.suppress(OSError):
        (memory / "memory.swappiness").write_text("0")
    (folders["pids"] / "pids.max").write_text(str(limits.processes))
    cpu = folders["cpu"]
    (cpu / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
    (cpu / "cpu.cfs_quota_us").write_text(str(max(1000, int(limits.cpu_share * CPU_PERIOD_US))))
    return Cgroup(folders, unified=False)


def _keyed(path: Path) -> dict[str, int]:
    """A flat keyed cgroup file ("key value" lines) as a dict; {} when it cannot be read."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    values: dict[str, int] = {}
    for line in lines:
        key, _, value = line.partition(" ")
        with contextlib.suppress(ValueError):
            values[key] = int(value)
    return values


def _number(path: Path) -> int:
    """A cgroup file holding one number; 0 when it cannot be read."""
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return 0
