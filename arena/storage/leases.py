"""Match leases: which referee hosts each unfinished match, and the fencing token of its writes.

A referee hosts a match under a lease it renews (`renew_leases`); a host that dies stops renewing,
its lease lapses and another referee takes the match over (`claim_lapsed_matches`) and resumes it
from the decision log. Every claim bumps the match's `lease_epoch` and returns it; the host passes
that epoch with each of its writes (`DecisionRow.epoch`, `start_match`, `finish_match`,
`abort_match`), which are refused with `Fenced` once the match's epoch moved on, in the same
transaction as the write. A stale host (paused with SIGSTOP, then resumed) therefore can never
apply a decision after a takeover, however late it wakes up.

A match never claimed has epoch 0, so callers that know nothing of leases keep working.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta

from arena.storage.pool import Pool
from arena.storage.sql import query


def _interval(lease: timedelta) -> timedelta:
    if lease <= timedelta(0):
        raise ValueError(f"a lease must be positive, got {lease}")
    return lease


async def claim_match(pool: Pool, match_id: int, host: str, lease: timedelta) -> int | None:
    """Host one unfinished match on `host` under a new epoch; None if it is held or ended.

    The match is free when it has no host, is already `host`'s (a placement, or a restart), has
    no lease, or its lease lapsed. Returns the new epoch: `host`'s writes must carry it.
    """
    params = {"match_id": match_id, "host": host, "lease": _interval(lease)}
    async with pool.connection(f"claim match {match_id} for {host!r}") as conn:
        cursor = await conn.execute(query("claim_match"), params)
        row = await cursor.fetchone()
        return None if row is None else int(row[0])


async def assign_match(pool: Pool, match_id: int, host: str, lease: timedelta) -> bool:
    """Place a pending match on `host` (which then `claim_match`es it); whether it was pending.

    The epoch is not bumped: the claim that follows does that. Until then the lease keeps other
    referees' takeover scans off the match; if `host` never claims it, the lease lapses and
    `claim_lapsed_matches` takes it.
    """
    params = {"match_id": match_id, "host": host, "lease": _interval(lease)}
    async with pool.connection(f"assign match {match_id} to {host!r}") as conn:
        cursor = await conn.execute(query("assign_match"), params)
        return await cursor.fetchone() is not None


async def claim_own_matches(pool: Pool, host: str, lease: timedelta) -> list[tuple[int, int]]:
    """On `host`'s (re)start: its unfinished matches under new epochs, as (match id, epoch)."""
    params = {"host": host, "lease": _interval(lease)}
    async with pool.connection(f"claim the matches of {host!r}") as conn:
        cursor = await conn.execute(query("claim_own_matches"), params)
        return sorted((int(row[0]), int(row[1])) for row in await cursor.fetchall())


async def claim_lapsed_matches(
    pool: Pool, host: str, lease: timedelta, limit: int, running: Sequence[int] = ()
) -> list[tuple[int, int, str | None]]:
    """Take over up to `limit` unfinished matches whose host is gone, oldest first.

    Gone: the match has no host (a draining referee released it) or its lease lapsed (the host
    died). A pending match with no host is taken only once it is older than `lease`: until then
    its creator is about to claim it. Concurrent scans skip each other's rows (SKIP LOCKED), so
    no two referees take the same match. Returns (match id, new epoch, previous host) by id; the
    previous host is None for a match released by a draining referee (or never claimed).
    `running`: matches `host` still plays; their leases lapsed only because the database was
    down, and taking them over from itself would stop and restart them for nothing.
    """
    if limit < 1:
        return []
    params = {"host": host, "lease": _interval(lease), "limit": limit, "running": list(running)}
    async with pool.connection(f"claim lapsed matches for {host!r}") as conn:
        cursor = await conn.execute(query("claim_lapsed_matches"), params)
        rows = await cursor.fetchall()
        return sorted((int(row[0]), int(row[1]), row[2]) for row in rows)


async def renew_leases(
    pool: Pool, host: str, epochs: Mapping[int, int], lease: timedelta
) -> set[int]:
    """Extend the leases of `epochs` (match id -> epoch) still held by `host` under that epoch.

    Returns the ids renewed; a missing id is lost (taken over, or ended): stop hosting it.
    """
    if not epochs:
        return set()
    ids = sorted(epochs)
    params = {
        "host": host,
        "match_ids": ids,
        "epochs": [epochs[match_id] for match_id in ids],
        "lease": _interval(lease),
    }
    async with pool.connection(f"renew {len(ids)} leases of {host!r}") as conn:
        cursor = await conn.execute(query("renew_leases"), params)
        return {int(row[0]) for row in await cursor.fetchall()}


async def release_matches(pool: Pool, host: str, ids: Sequence[int] | None = None) -> list[int]:
    """Let go of `host`'s unfinished matches (all, or those of `ids`) for any referee to resume."""
    params = {"host": host, "match_ids": None if ids is None else list(ids)}
    async with pool.connection(f"release matches of {host!r}") as conn:
        cursor = await conn.execute(query("release_matches"), params)
        return sorted(int(row[0]) for row in await cursor.fetchall())


async def match_hosts_of_bot(pool: Pool, bot_id: int) -> list[tuple[int, str | None]]:
    """(match id, host) of the unfinished matches where `bot_id` holds a seat, by id."""
    async with pool.connection(f"find the matches of bot {bot_id}") as conn:
        cursor = await conn.execute(query("match_hosts_of_bot"), {"bot_id": bot_id})
        return [(int(row[0]), row[1]) for row in await cursor.fetchall()]


async def match_host(pool: Pool, match_id: int) -> tuple[str | None, int] | None:
    """(host, lease epoch) of a match; None if there is no such match."""
    async with pool.connection(f"find the host of match {match_id}") as conn:
        cursor = await conn.execute(query("match_host"), {"match_id": match_id})
        row = await cursor.fetchone()
        return None if row is None else (row[0], int(row[1]))


class MatchLeases:
    """The lease calls of `arena.storage.Database` (a base class, to keep `Database` small)."""

    pool: Pool

    async def claim_match(self, match_id: int, host: str, lease: timedelta) -> int | None:
        """Host a free unfinished match on `host`; its new epoch (see `leases.claim_match`)."""
        return await claim_match(self.pool, match_id, host, lease)

    async def assign_match(self, match_id: int, host: str, lease: timedelta) -> bool:
        """Place a pending match on `host`, epoch unchanged (see `leases.assign_match`)."""
        return await assign_match(self.pool, match_id, host, lease)

    async def claim_own_matches(self, host: str, lease: timedelta) -> list[tuple[int, int]]:
        """`host`'s unfinished matches under new epochs: (match id, epoch) by id."""
        return await claim_own_matches(self.pool, host, lease)

    async def claim_lapsed_matches(
        self, host: str, lease: timedelta, limit: int, running: Sequence[int] = ()
    ) -> list[tuple[int, int, str | None]]:
        """Take over matches whose host is gone (see `leases.claim_lapsed_matches`)."""
        return await claim_lapsed_matches(self.pool, host, lease, limit, running)

    async def renew_leases(
        self, host: str, epochs: Mapping[int, int], lease: timedelta
    ) -> set[int]:
        """Extend `host`'s leases (match id -> epoch); the ids renewed, the others are lost."""
        return await renew_leases(self.pool, host, epochs, lease)

    async def release_matches(self, host: str, ids: Sequence[int] | None = None) -> list[int]:
        """Let go of `host`'s unfinished matches (all, or `ids`) for any referee to resume."""
        return await release_matches(self.pool, host, ids)

    async def match_hosts_of_bot(self, bot_id: int) -> list[tuple[int, str | None]]:
        """(match id, host) of the unfinished matches where the bot holds a seat."""
        return await match_hosts_of_bot(self.pool, bot_id)

    async def match_host(self, match_id: int) -> tuple[str | None, int] | None:
        """(host, lease epoch) of a match; None if there is no such match."""
        return await match_host(self.pool, match_id)
