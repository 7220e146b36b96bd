"""The leases of the matches a referee hosts: renewed while it lives, taken over when they lapse.

Hosting a match is a lease in Postgres (`matches.host`, `lease_epoch`, `lease_expires`). The host
renews the leases of its running matches every `renew`; a referee that dies or stalls stops
renewing, and after `lease` any live referee's scan (every `scan`) takes the match over, bumping
the epoch, and resumes it from the decision log. The epoch is checked in the same transaction as
every decision row (`arena.storage.leases`), so the old host, if it was only paused, can no longer
apply anything: its runner finds itself fenced and stops without a word to the bots.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from arena.ops import metrics
from arena.referee.tasks import cancel_until_done
from arena.storage.db import Database
from arena.storage.errors import StorageError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class LeaseTimings:
    """How long a lease lasts, how often it is renewed, how often lapsed ones are looked for."""

    lease: timedelta = timedelta(seconds=6)
    renew: timedelta = timedelta(seconds=2)
    scan: timedelta = timedelta(seconds=1)
    takeover_batch: int = 16
    """Most matches one scan takes over: several survivors then share a dead referee's load."""

    def check(self) -> None:
        """Refuse timings under which a live host would lose its own matches."""
        if self.renew * 2 > self.lease:
            raise ValueError(
                f"the lease ({self.lease.total_seconds():g}s) must be at least twice the renewal "
                f"interval ({self.renew.total_seconds():g}s), or a slow renewal loses the match"
            )


def lease_timings(lease_seconds: float) -> LeaseTimings:
    """Timings for a lease of `lease_seconds`: renewed every third of it, scanned every second
    (or more often for a short lease)."""
    lease = timedelta(seconds=lease_seconds)
    return LeaseTimings(lease=lease, renew=lease / 3, scan=min(timedelta(seconds=1), lease / 3))


Held = Callable[[], dict[int, int]]
"""Match id -> lease epoch of every match running here."""
Lost = Callable[[int], None]
"""Stop the runner of a match whose lease was lost."""
Adopt = Callable[[list[tuple[int, int]], str], Awaitable[object]]
"""Play matches just taken over, given as (match id, epoch), and why ('lapsed' or 'released')."""


class LeaseKeeper:
    """Renews this referee's leases and takes over lapsed ones."""

    def __init__(
        self,
        db: Database,
        host: str,
        timings: LeaseTimings,
        held: Held,
        lost: Lost,
        adopt: Adopt,
    ) -> None:
        timings.check()
        self.db = db
        self.host = host
        self.timings = timings
        self._held = held
        self._lost = lost
        self._adopt = adopt
        self.draining = False
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._renew_forever(), name="lease-renew"),
            asyncio.create_task(self._scan_forever(), name="lease-scan"),
        ]

    async def stop(self) -> None:
        await cancel_until_done(self._tasks)

    async def renew(self) -> bool:
        """Extend every lease held here; stop the matches whose lease another referee took.
        False if the database could not be reached."""
        held = self._held()
        if not held:
            return True
        try:
            renewed = await self.db.renew_leases(self.host, held, self.timings.lease)
        except StorageError as exc:
            metrics.LEASE_RENEWALS_FAILED.labels(self.host).inc()
            log.warning("cannot renew the leases of %s matches: %s", len(held), exc)
            return False
        for match_id in sorted(set(held) - set(renewed)):
            now = await self.db.match_host(match_id)
            if now == (self.host, held[match_id]):
                continue  # still ours: it ended between the two reads
            metrics.LEASE_RENEWALS_FAILED.labels(self.host).inc()
            log.warning(
                "match %s: lost its lease (epoch %s); now %s",
                match_id,
                held[match_id],
                "ended" if now is None else f"host {now[0]}, epoch {now[1]}",
            )
            self._lost(match_id)
        return True

    async def scan(self) -> list[int]:
        """Take over matches whose lease lapsed or that a draining referee released."""
        if self.draining:
            return []
        claimed = await self.db.claim_lapsed_matches(
            self.host, self.timings.lease, self.timings.takeover_batch, sorted(self._held())
        )
        for match_id, _, previous in claimed:
            if previous is None:
                log.info("took over match %s, released by its host", match_id)
            else:
                log.warning("took over match %s from %s (its lease lapsed)", match_id, previous)
        for released in (False, True):
            taken = [(m, epoch) for m, epoch, previous in claimed if (previous is None) == released]
            if taken:
                await self._adopt(taken, "released" if released else "lapsed")
        return [match_id for match_id, _, _ in claimed]

    async def _renew_forever(self) -> None:
        pause = self.timings.renew
        while True:
            await asyncio.sleep(pause.total_seconds())
            # After a failed renewal, try again at the scan's pace: once the database is back the
            # leases are extended before other referees' scans find them lapsed.
            pause = self.timings.renew if await self.renew() else self.timings.scan

    async def _scan_forever(self) -> None:
        while True:
            # Jittered, so that the survivors of a dead referee do not all scan at once.
            await asyncio.sleep(self.timings.scan.total_seconds() * random.uniform(0.75, 1.25))
            try:
                await self.scan()
            except StorageError as exc:  # the database is down: try again next time
                log.warning("cannot look for matches to take over: %s", exc)
