"""Writing ratings to Postgres: a closed round's tables, an ad-hoc match, the leaderboards.

A round is rated from the ratings before it, in the transaction that closes it, in four statements
and two round trips however many tables it has; each match is marked rated once, so a retried task
counts nothing twice. A tournament with the OpenSkill system also updates `skill_ratings`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from arena.ops import metrics
from arena.storage import Database
from arena.storage.rows import MatchStatus
from arena.storage.sql import query
from arena.storage.tournaments import (
    RatingRow,
    lock_ratings_and_mark_rated,
    match_for_rating,
    ratings_for_update,
    write_round_ratings,
)
from arena.tournament import skill
from arena.tournament.formats import RatingSystem, parse_rating_system
from arena.tournament.ratings import (
    DEFAULT_K,
    DEFAULT_RATING,
    elo_deltas,
    provisional_k,
    rate_round,
)
from arena.tournament.tables import Table


async def rate_closed_round(
    conn: AsyncConnection[Any],
    game: str,
    system: RatingSystem,
    key: tuple[int, int],
    current: Sequence[Table],
    k: float,
) -> None:
    """Rate the finished tables of round `key` = (tournament, round) being closed, in the
    caller's transaction: four statements in two round trips per round, however many tables."""
    tournament_id, round_no = key
    # An aborted match was not played out: it counts for standings (a tie) but is never rated.
    finished = {
        t.match_id: t
        for t in current
        if t.match_id is not None and t.match_status is MatchStatus.FINISHED
    }
    bots = sorted({b for t in finished.values() for b in t.bot_ids})
    rows, marked = await lock_ratings_and_mark_rated(conn, game, bots, sorted(finished))
    before = _with_defaults(rows, bots)
    ratings = {b: before[b].rating for b in bots}
    to_rate = [t for match_id, t in sorted(finished.items()) if match_id in marked]
    played = {b: before[b].games_for_k for b in bots}
    per_match = {
        t.match_id: rate_round(ratings, [list(zip(t.bot_ids, t.ranks, strict=True))], k, played)
        for t in to_rate
    }
    if to_rate and system is RatingSystem.OPENSKILL:
        await skill.rate_tables(
            conn, game, [list(zip(t.bot_ids, t.ranks, strict=True)) for t in to_rate]
        )
    changes: dict[str, list[Any]] = {
        "bot_ids": [],
        "match_ids": [],
        "befores": [],
        "afters": [],
        "deltas": [],
    }
    totals: dict[int, float] = {}
    for match_id, deltas in per_match.items():
        for bot, delta in deltas.items():
            totals[bot] = totals.get(bot, 0.0) + delta
            for column, value in zip(
                changes,
                (bot, match_id, ratings[bot], ratings[bot] + delta, delta),
                strict=True,
            ):
                changes[column].append(value)
    if not totals:
        return
    # Two write statements per round, however many tables, sent together: the batched writes
    # of bench/ratings.py.
    bots_rated = sorted(totals)
    await write_round_ratings(
        conn,
        {"game": game, "tournament_id": tournament_id, "round_no": round_no, **changes},
        {
            "game": game,
            "bot_ids": bots_rated,
            "ratings": [before[b].rating + totals[b] for b in bots_rated],
            "games": [before[b].games + 1 for b in bots_rated],
        },
    )


async def rate_match(db: Database, match_id: int, k: float = DEFAULT_K) -> dict[int, float]:
    """Rate a finished ad-hoc match once; returns bot id -> change ({} if it was not rated now)."""
    began = time.perf_counter()
    async with db.transaction(f"rate match {match_id}") as conn:
        match = await match_for_rating(conn, match_id)
        if (
            match is None
            or match.status is not MatchStatus.FINISHED
            or match.rated
            or match.tournament_id is not None
        ):
            return {}
        game = match.game
        cursor = await conn.execute(query("match_ranks"), {"match_id": match_id})
        seats = [(int(b), int(r)) for b, r in await cursor.fetchall()]
        bots = [b for b, _ in seats]
        before = _with_defaults(await ratings_for_update(conn, game, bots), bots)
        current = [before[b].rating for b in bots]
        ks = [provisional_k(before[b].games_for_k, k) for b in bots]
        deltas = elo_deltas(current, [r for _, r in seats], ks)
        # A bot seated twice (self-play) gets one change: the sum of its seats'.
        totals: dict[int, float] = {}
        for bot, delta in zip(bots, deltas, strict=True):
            totals[bot] = totals.get(bot, 0.0) + delta
        rated = sorted(totals)
        await conn.execute(query("mark_rated"), {"match_id": match_id})
        await write_round_ratings(
            conn,
            {
                "game": game,
                "tournament_id": None,
                "round_no": None,
                "bot_ids": rated,
                "match_ids": [match_id] * len(rated),
                "befores": [before[b].rating for b in rated],
                "afters": [before[b].rating + totals[b] for b in rated],
                "deltas": [totals[b] for b in rated],
            },
            {
                "game": game,
                "bot_ids": rated,
                "ratings": [before[b].rating + totals[b] for b in rated],
                "games": [before[b].games + 1 for b in rated],
            },
        )
    metrics.RATING_UPDATE_SECONDS.observe(time.perf_counter() - began)
    return totals


def _with_defaults(rows: dict[int, RatingRow], bots: Sequence[int]) -> dict[int, RatingRow]:
    """Every bot's rating row; a bot never rated starts at `DEFAULT_RATING` with no games."""
    return {b: rows.get(b) or RatingRow(b, DEFAULT_RATING, 0) for b in bots}


async def leaderboard(
    db: Database, game: str, limit: int = 20, system: RatingSystem | str = RatingSystem.ELO
) -> list[dict[str, Any]]:
    """The top bots of a game by Elo rating, or by OpenSkill's conservative mu - 3 sigma."""
    chosen = parse_rating_system(str(system))
    sql = query("leaderboard") if chosen == RatingSystem.ELO else query("skill_leaderboard")
    params = {"game": game, "limit": limit, "system": chosen.value}
    async with db.transaction("read leaderboard") as conn, conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(sql, params)
        rows = await cur.fetchall()
    if chosen != RatingSystem.ELO:
        for row in rows:
            row["rating"] = row["ordinal"]
    return rows
