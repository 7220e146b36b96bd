"""Creating tournaments: validate the settings and entrants, then insert in one transaction."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb

from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.sql import query
from arena.tournament.formats import (
    Format,
    RatingSystem,
    default_rounds,
    parse_format,
    parse_rating_system,
    table_rules,
)


async def create_tournament(
    db: Database,
    *,
    name: str,
    game: str,
    bot_names: Sequence[str],
    table_size: int,
    rounds: int | None,
    clock: Clock,
    options: dict[str, Any] | None = None,
    starts_at: datetime | None = None,
    seed: int = 0,
    format: Format | str = Format.SWISS,
    rating_system: RatingSystem | str = RatingSystem.ELO,
    forfeit_limit: int | None = None,
) -> int:
    """Validate and store a scheduled tournament; `ValueError`/`EngineError` name what is wrong.

    `rounds` None (or 0) picks `default_rounds` for the field; `forfeit_limit` withdraws a bot
    once it has forfeited that many matches of the tournament.
    """
    new = await prepare_tournament(
        db,
        name=name,
        game=game,
        bot_names=bot_names,
        table_size=table_size,
        rounds=rounds,
        clock=clock,
        options=options,
        starts_at=starts_at,
        seed=seed,
        format=format,
        rating_system=rating_system,
        forfeit_limit=forfeit_limit,
    )
    async with db.transaction("create tournament") as conn:
        return await insert_tournament(conn, new)


@dataclass(frozen=True, slots=True)
class NewTournament:
    """A validated tournament, ready to insert."""

    params: dict[str, Any]
    bot_ids: tuple[int, ...]


async def prepare_tournament(
    db: Database,
    *,
    name: str,
    game: str,
    bot_names: Sequence[str],
    table_size: int,
    rounds: int | None,
    clock: Clock,
    options: dict[str, Any] | None = None,
    starts_at: datetime | None = None,
    seed: int = 0,
    format: Format | str = Format.SWISS,
    rating_system: RatingSystem | str = RatingSystem.ELO,
    forfeit_limit: int | None = None,
) -> NewTournament:
    """Check a tournament's settings and resolve its bots (see `create_tournament`)."""
    rules = table_rules(game, table_size)
    format_ = parse_format(str(format))
    system = parse_rating_system(str(rating_system))
    if rounds is not None and rounds < 0:
        raise ValueError(f"rounds must be at least 1 (or 0 to choose), got {rounds}")
    if forfeit_limit is not None and forfeit_limit < 1:
        raise ValueError(f"the forfeit limit must be at least 1, got {forfeit_limit}")
    if len(set(bot_names)) != len(bot_names):
        raise ValueError("a bot may enter only once")
    smallest = min((s for s in rules.seat_counts if s >= 2), default=2)
    if len(bot_names) < smallest:
        raise ValueError(
            f"{game} needs at least {smallest} entrants to fill one table; got {len(bot_names)}"
        )
    rounds = rounds or default_rounds(len(bot_names), table_size, format_)
    resolved = rules.resolve_options(options or {})
    bot_ids = []
    for bot in bot_names:
        row = await db.bot_by_name(bot)
        if row is None:
            raise LookupError(f"unknown bot {bot!r}")
        bot_ids.append(row.id)
    params = {
        "name": name or f"{game} {format_.value.replace('_', '-')}",
        "game": game,
        "options": Jsonb(resolved),
        "table_size": table_size,
        "rounds": rounds,
        "clock": Jsonb(clock.to_json()),
        "starts_at": starts_at or datetime.now(UTC),
        "seed": seed or secrets.randbits(62),
        "format": format_.value,
        "rating_system": system.value,
        "forfeit_limit": forfeit_limit,
    }
    return NewTournament(params, tuple(bot_ids))


async def insert_tournament(conn: Any, new: NewTournament) -> int:
    """Insert a prepared tournament in the caller's transaction; returns its id."""
    cursor = await conn.execute(query("create_tournament"), new.params)
    row = await cursor.fetchone()
    assert row is not None
    tournament_id = int(row[0])
    ids = {"tournament_id": tournament_id, "bot_ids": list(new.bot_ids)}
    await conn.execute(query("create_entries"), ids)
    await conn.execute(query("create_standings"), ids)
    return tournament_id
