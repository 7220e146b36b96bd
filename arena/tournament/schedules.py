"""Recurring tournaments: a schedule creates one edition per period; beat runs `run_due`.

A schedule fires at `next_run` and then every `every` ("every 6 hours", or "daily at 02:00 UTC":
every day from the next 02:00). Claiming a due schedule, creating its edition and moving
`next_run` past now happen in one transaction, so an edition is created exactly once however
many beat ticks or workers race, and a start missed while beat was down is caught up once, not
once per missed period. Entrants are a named list, or (no list) every bot connected to the
referee when the edition starts; too few of them skips the edition with a warning.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any

from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.sql import query
from arena.tournament import rounds as tournaments
from arena.tournament.formats import parse_format, parse_rating_system, table_rules

log = logging.getLogger(__name__)

_EVERY = re.compile(r"^\s*(\d+)\s*([smhd])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}

Connected = Callable[[], Awaitable[Sequence[str]]]


@dataclass(frozen=True, slots=True)
class Schedule:
    """A stored schedule."""

    id: int
    name: str
    game: str
    table_size: int
    rounds: int
    format: str
    rating_system: str
    bot_names: tuple[str, ...] | None
    every: timedelta
    next_run: datetime
    paused: bool
    editions: int


def parse_every(text: str) -> timedelta:
    """'90s', '15m', '6h' or '1d' as a timedelta; a `ValueError` names a bad period."""
    match = _EVERY.match(text)
    if not match or int(match[1]) == 0:
        raise ValueError(f"bad period {text!r}: use a whole number and s, m, h or d, e.g. '6h'")
    return timedelta(**{_UNITS[match[2]]: int(match[1])})


def next_daily(at: str, now: datetime) -> datetime:
    """The next time of day `at` ('HH:MM', UTC) after `now`; a `ValueError` names a bad time."""
    try:
        clock_time = time.fromisoformat(at)
    except ValueError:
        raise ValueError(f"bad time of day {at!r}: use HH:MM in UTC, e.g. '02:00'") from None
    today = datetime.combine(now.date(), clock_time, tzinfo=UTC)
    return today if today > now else today + timedelta(days=1)


def following(next_run: datetime, every: timedelta, now: datetime) -> datetime:
    """The first run of the series next_run + k * every strictly after `now` (k >= 1)."""
    if next_run > now:
        return next_run + every
    missed = math.floor((now - next_run) / every)
    return next_run + (missed + 1) * every


async def create_schedule(
    db: Database,
    *,
    name: str,
    game: str,
    table_size: int,
    every: timedelta,
    first_run: datetime,
    rounds: int = 0,
    bot_names: Sequence[str] | None = None,
    format: str = "swiss",
    rating_system: str = "elo",
    clock: Clock | None = None,
    options: dict[str, Any] | None = None,
) -> int:
    """Validate and store a schedule; `ValueError`/`LookupError` name what is wrong."""
    if not name.strip():
        raise ValueError("a schedule needs a name")
    if every < timedelta(seconds=1):
        raise ValueError(f"the period must be at least one second, got {every}")
    table_rules(game, table_size)
    if bot_names is not None:  # the same checks a tournament makes, now rather than at 02:00
        await tournaments.prepare_tournament(
            db,
            name=name,
            game=game,
            bot_names=bot_names,
            table_size=table_size,
            rounds=rounds,
            clock=clock or Clock(),
            options=options,
            format=format,
            rating_system=rating_system,
        )
    params = {
        "name": name,
        "game": game,
        "options": Jsonb(options or {}),
        "format": parse_format(format).value,
        "rating_system": parse_rating_system(rating_system).value,
        "table_size": table_size,
        "rounds": rounds,
        "clock": Jsonb((clock or Clock()).to_json()),
        "bot_names": list(bot_names) if bot_names is not None else None,
        "every": every,
        "next_run": first_run,
    }
    async with db.transaction("create schedule") as conn:
        cursor = await conn.execute(query("create_schedule"), params)
        row = await cursor.fetchone()
        assert row is not None
        return int(row[0])


async def list_schedules(db: Database) -> list[Schedule]:
    """Every schedule, oldest first."""
    async with db.transaction("list schedules") as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query("schedules"))
        return [_schedule(r) for r in await cur.fetchall()]


async def pause(db: Database, schedule_id: int, paused: bool = True) -> None:
    """Pause (or resume) a schedule; `LookupError` if there is none."""
    async with db.transaction("pause schedule") as conn:
        cursor = await conn.execute(
            query("pause_schedule"), {"schedule_id": schedule_id, "paused": paused}
        )
        if await cursor.fetchone() is None:
            raise LookupError(f"no schedule {schedule_id}")


async def delete(db: Database, schedule_id: int) -> None:
    """Delete a schedule (its editions stay); `LookupError` if there is none."""
    async with db.transaction("delete schedule") as conn:
        cursor = await conn.execute(query("delete_schedule"), {"schedule_id": schedule_id})
        if await cursor.fetchone() is None:
            raise LookupError(f"no schedule {schedule_id}")


async def run_due(db: Database, connected: Connected, now: datetime | None = None) -> list[int]:
    """Create the edition of every due schedule (one per schedule, however late); their ids."""
    now = now or datetime.now(UTC)
    created = []
    async with (
        db.transaction("run due schedules") as conn,
        conn.cursor(row_factory=dict_row) as cur,
    ):
        await cur.execute(query("due_schedules_for_update"), {"now": now})
        for row in await cur.fetchall():
            schedule = _schedule(row)
            tournament_id = await _edition(db, conn, schedule, row, connected, now)
            await conn.execute(
                query("advance_schedule"),
                {
                    "schedule_id": schedule.id,
                    "next_run": following(schedule.next_run, schedule.every, now),
                    "created": 1 if tournament_id is not None else 0,
                },
            )
            if tournament_id is not None:
                # The schedule's owner manages its editions too (migration 0010).
                await conn.execute(
                    query("inherit_schedule_owner"),
                    {"tournament_id": tournament_id, "schedule_id": schedule.id},
                )
                created.append(tournament_id)
    return created


async def _edition(
    db: Database,
    conn: Any,
    schedule: Schedule,
    row: dict[str, Any],
    connected: Connected,
    now: datetime,
) -> int | None:
    names = list(schedule.bot_names) if schedule.bot_names is not None else list(await connected())
    try:
        new = await tournaments.prepare_tournament(
            db,
            name=f"{schedule.name} #{schedule.editions + 1}",
            game=schedule.game,
            bot_names=sorted(set(names)),
            table_size=schedule.table_size,
            rounds=schedule.rounds or None,
            clock=Clock.from_json(dict(row["clock"])),
            options=dict(row["options"]),
            starts_at=now,
            format=schedule.format,
            rating_system=schedule.rating_system,
        )
    except (ValueError, LookupError) as exc:
        log.warning("schedule %s skips its edition: %s", schedule.name, exc)
        return None
    return await tournaments.insert_tournament(conn, new)


def _schedule(row: dict[str, Any]) -> Schedule:
    return Schedule(
        id=row["id"],
        name=row["name"],
        game=row["game"],
        table_size=row["table_size"],
        rounds=row["rounds"],
        format=row["format"],
        rating_system=row["rating_system"],
        bot_names=tuple(row["bot_names"]) if row["bot_names"] is not None else None,
        every=row["every"],
        next_run=row["next_run"],
        paused=row["paused"],
        editions=row["editions"],
    )
