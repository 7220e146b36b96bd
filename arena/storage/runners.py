"""Runners and hosted-bot leases: which live runner runs each needed hosted bot.

A runner claims needed bots that no live lease holds (`claim`), renews the leases of the bots it
runs (`renew`), and releases a bot it stops (`release`). A runner that dies stops renewing; its
leases lapse and another runner's next `claim` takes the bots, under a new epoch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from arena.storage.pool import Pool
from arena.storage.sql import query


@dataclass(frozen=True, slots=True)
class RunnerRow:
    """A runner as it last reported."""

    name: str
    started_at: datetime
    seen_at: datetime
    bots_running: int
    restarts: int


@dataclass(frozen=True, slots=True)
class Claimed:
    """A hosted bot a runner claimed."""

    bot_id: int
    previous: str | None
    """The runner whose lapsed lease was taken over; None for a free bot or one's own."""


@dataclass(frozen=True, slots=True)
class Launch:
    """What a runner needs to start a hosted bot."""

    bot_id: int
    name: str
    label: str
    archive_sha256: bytes
    run_command: str
    uploaded_at: datetime
    """When the version was made (its upload ended)."""


@dataclass(frozen=True, slots=True)
class EndedMatch:
    """A match a hosted bot played that ended and whose output is not saved yet."""

    match_id: int
    bot_id: int
    started_at: datetime
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class StopRow:
    """A hosted bot's last end other than by its runner's stop."""

    bot: str
    runner: str
    cause: str
    detail: str
    stopped_at: datetime
    stops: int


class Runners:
    """Queries of runners and hosted-bot leases."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    async def heartbeat(self, name: str, running: int, restarts: int) -> None:
        """Say the runner is alive, with what it runs."""
        params = {"name": name, "running": running, "restarts": restarts}
        async with self.pool.connection("runner heartbeat") as conn:
            await conn.execute(query("runner_heartbeat"), params)

    async def listed(self) -> list[RunnerRow]:
        """Every runner that ever reported."""
        return await self.pool.all("list runners", query("list_runners"), {}, class_row(RunnerRow))

    async def needed(self) -> list[int]:
        """The ids of hosted bots that should be running now."""
        async with self.pool.connection("find needed hosted bots") as conn:
            cursor = await conn.execute(query("needed_hosted_bots"))
            return [int(row[0]) for row in await cursor.fetchall()]

    async def claim(self, runner: str, bot_ids: list[int], lease: timedelta) -> list[int]:
        """Of `bot_ids`, those now leased to `runner` (free or lapsed ones)."""
        return sorted(claimed.bot_id for claimed in await self.claim_noting(runner, bot_ids, lease))

    async def claim_noting(
        self, runner: str, bot_ids: list[int], lease: timedelta
    ) -> list[Claimed]:
        """Like `claim`, saying of each bot which runner's lapsed lease it was taken from."""
        params = {"runner": runner, "bot_ids": bot_ids, "lease": lease}
        async with self.pool.connection(f"claim hosted bots for {runner!r}") as conn:
            cursor = await conn.execute(query("claim_hosted_bots"), params)
            rows = await cursor.fetchall()
        return sorted((Claimed(int(row[0]), row[2]) for row in rows), key=lambda c: c.bot_id)

    async def renew(self, runner: str, bot_ids: list[int], lease: timedelta) -> list[int]:
        """Extend `runner`'s leases of `bot_ids`; the ids it still holds."""
        params = {"runner": runner, "bot_ids": bot_ids, "lease": lease}
        async with self.pool.connection(f"renew the leases of {runner!r}") as conn:
            cursor = await conn.execute(query("renew_hosted_leases"), params)
            return sorted(int(row[0]) for row in await cursor.fetchall())

    async def release(self, runner: str, bot_id: int) -> None:
        """Give up the lease of a bot `runner` stopped."""
        params = {"runner": runner, "bot_id": bot_id}
        async with self.pool.connection(f"release hosted bot {bot_id}") as conn:
            await conn.execute(query("release_hosted_lease"), params)

    async def launch(self, bot_id: int) -> Launch | None:
        """The bot's playing version, if it is hosted."""
        return await self.pool.one(
            f"read hosted bot {bot_id}",
            query("hosted_launch"),
            {"bot_id": bot_id},
            class_row(Launch),
        )

    async def set_always_on(self, bot_id: int, always_on: bool) -> None:
        """Mark a bot always on (or not)."""
        async with self.pool.connection(f"set always-on of bot {bot_id}") as conn:
            await conn.execute(query("set_always_on"), {"bot_id": bot_id, "always_on": always_on})

    async def ended_matches(self, bot_ids: list[int], within: timedelta) -> list[EndedMatch]:
        """Matches of `bot_ids` that ended within `within` and have no saved output."""
        params = {"bot_ids": bot_ids, "within": within}
        return await self.pool.all(
            "find ended matches of hosted bots",
            query("ended_hosted_matches"),
            params,
            class_row(EndedMatch),
        )

    async def save_output(
        self, match_id: int, bot_id: int, lines: list[tuple[float, str]], dropped: int
    ) -> None:
        """Keep what the bot wrote during the match (once; a second save is ignored)."""
        params = {"match_id": match_id, "bot_id": bot_id, "lines": Jsonb(lines)}
        async with self.pool.connection(f"save the output of bot {bot_id}") as conn:
            await conn.execute(query("save_match_output"), {**params, "dropped": dropped})

    async def note_stop(self, bot_id: int, runner: str, cause: str, detail: str) -> None:
        """Keep why the bot's program ended (not by the runner's stop), for its owner."""
        params = {"bot_id": bot_id, "runner": runner, "cause": cause, "detail": detail}
        async with self.pool.connection(f"note the stop of bot {bot_id}") as conn:
            await conn.execute(query("note_hosted_stop"), params)

    async def recent_stops(self, within: timedelta, limit: int = 20) -> list[StopRow]:
        """The hosted bots' last stops within `within`, newest first."""
        params = {"within": within, "limit": limit}
        return await self.pool.all(
            "list hosted bots' stops", query("recent_hosted_stops"), params, class_row(StopRow)
        )
