"""`arena runner`: runs the hosted bots that are needed, each leased to one live runner.

Every TICK the runner reads which hosted bots are needed (storage.runners), stops the ones no
longer needed or whose lease it lost, renews its leases, claims free or lapsed ones up to its
capacity, and reports a heartbeat. A runner that dies stops renewing: its leases lapse after
LEASE and another runner's next tick takes its bots (within LEASE + TICK, 6 s by default), so
with a bot's start they play again inside the referee's reconnect grace (10 s) and a runner's
death costs its bots' matches time, not strikes.

A runner's bots' cgroups go under `<cgroup_base>/<runner name>` and their files under its
workdir. When it starts it runs nothing yet, so whatever is there was left by an earlier run of
the same runner that was SIGKILLed: `sweep` removes it. Unpacked archives no bot of the runner
uses any more are deleted at every tick.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import time
from datetime import timedelta

from arena.hosting import cgroups, transcripts
from arena.hosting.supervisor import Counters, Placement, Supervisor
from arena.ops import metrics
from arena.storage.pool import Pool
from arena.storage.runners import Runners

LEASE = timedelta(seconds=5)
"""How long a runner's claim on a bot lasts without renewal."""
TICK = timedelta(seconds=1)
"""How often a runner renews, claims and reports."""
CAPACITY = 50
"""The most hosted bots one runner runs at once."""


class Runner:
    """One runner process's loop over its hosted bots."""

    def __init__(
        self, name: str, pool: Pool, placement: Placement, capacity: int = CAPACITY
    ) -> None:
        self.name = name
        self.pool = pool
        own_base = f"{placement.cgroup_base}/{name}"
        self.placement = dataclasses.replace(placement, cgroup_base=own_base)
        self.capacity = capacity
        self.runners = Runners(pool)
        self.counters = Counters(runner=name)
        self.bots: dict[int, Supervisor] = {}
        self.stopped: dict[int, tuple[float, Supervisor]] = {}
        """Bots stopped within transcripts.LOOKBACK, whose last match's output may be unsaved."""

    async def run(self) -> None:
        """Sweep what an earlier run left, tick until cancelled; then stop every bot."""
        self.sweep()
        metrics.start_runner_series(self.name)
        try:
            while True:
                await self.tick()
                await asyncio.sleep(TICK.total_seconds())
        finally:
            await self.stop_all()
            cgroups.remove_base(self.placement.cgroup_base)

    def sweep(self) -> int:
        """Remove the cgroups, unpacked archives and sockets of an earlier run of this runner
        (none of its bots runs yet); the number of cgroups removed."""
        removed = cgroups.sweep(self.placement.cgroup_base)
        for folder in ("archives", "sockets"):
            shutil.rmtree(self.placement.workdir / folder, ignore_errors=True)
        return removed

    async def tick(self) -> None:
        """One round: stop, renew, claim, report, save the output of ended matches."""
        needed = set(await self.runners.needed())
        for bot_id in [b for b in self.bots if b not in needed]:
            await self._stop(bot_id, release=True)
        held = set(await self.runners.renew(self.name, sorted(self.bots), LEASE))
        for bot_id in [b for b in self.bots if b not in held]:
            await self._stop(bot_id, release=False)
        room = self.capacity - len(self.bots)
        free = sorted(b for b in needed if b not in self.bots)[: max(room, 0)]
        if free:
            for claimed in await self.runners.claim_noting(self.name, free, LEASE):
                self.bots[claimed.bot_id] = Supervisor(
                    claimed.bot_id, self.pool, self.placement, self.counters
                )
                if claimed.previous is not None:
                    metrics.RUNNER_LEASE_TAKEOVERS.labels(self.name).inc()
        self.prune_archives()
        metrics.RUNNER_BOTS.labels(self.name).set(len(self.bots))
        memory = sum(supervisor.memory_bytes() for supervisor in self.bots.values())
        metrics.RUNNER_MEMORY.labels(self.name).set(memory)
        await self.runners.heartbeat(self.name, len(self.bots), self.counters.restarts)
        since = time.monotonic() - transcripts.LOOKBACK.total_seconds()
        self.stopped = {b: (at, s) for b, (at, s) in self.stopped.items() if at > since}
        recent = {b: s for b, (_, s) in self.stopped.items()}
        await transcripts.save_ended(self.runners, {**recent, **self.bots})

    def prune_archives(self) -> list[str]:
        """Delete the unpacked archives (and unpacking leftovers) no bot of this runner runs or
        is about to unpack; their names."""
        folder = self.placement.workdir / "archives"
        if not folder.is_dir():
            return []
        in_use = {supervisor.archive for supervisor in self.bots.values()}
        pruned = []
        for entry in folder.iterdir():
            if entry.name.partition(".")[0] not in in_use:
                shutil.rmtree(entry, ignore_errors=True)
                pruned.append(entry.name)
        return pruned

    async def stop_all(self) -> None:
        """Stop every bot (the leases lapse, or are released when the database answers)."""
        for bot_id in list(self.bots):
            with contextlib.suppress(Exception):
                await self._stop(bot_id, release=True)
        self.prune_archives()

    async def _stop(self, bot_id: int, release: bool) -> None:
        supervisor = self.bots.pop(bot_id)
        supervisor.stop()
        with contextlib.suppress(asyncio.CancelledError):
            await supervisor.task
        shutil.rmtree(self.placement.workdir / "sockets" / str(bot_id), ignore_errors=True)
        self.stopped[bot_id] = (time.monotonic(), supervisor)
        if release:
            await self.runners.release(self.name, bot_id)
