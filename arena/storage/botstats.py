"""A bot's statistics per game, read from storage: results, rating history, strikes, think times.

One module behind `arena bot stats`, the GetBotStats RPC and the web Bot page, so all three show
the same figures. Strike kinds come from the tag the referee puts before each stored strike note
(`"timeout: no answer to decision 4 ..."`, see `strike_note`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from psycopg.rows import dict_row

from arena.storage.db import Database
from arena.storage.sql import query

STRIKE_KINDS = ("timeout", "invalid_action", "illegal_action", "stale_decision")
"""The strike kinds the referee records (lower-case `ProblemKind` names)."""


def strike_note(kind: str, message: str) -> str:
    """The stored form of a strike: its kind as a tag, then the message the bot received."""
    return f"{kind}: {message}"


def read_strike_note(note: str) -> tuple[str, str]:
    """(kind, message) of a stored strike note; notes stored before the tag read as "unknown"."""
    kind, sep, message = note.partition(": ")
    if sep and kind in STRIKE_KINDS:
        return kind, message
    return ("timeout" if note.startswith("no answer") else "unknown"), note


@dataclass(frozen=True, slots=True)
class RatingPoint:
    """One rating change of a bot."""

    match_id: int
    before: float
    after: float
    delta: float
    at: datetime


@dataclass(frozen=True, slots=True)
class ThinkTimes:
    """Percentiles of the time a bot took to answer, over its answered decisions."""

    decisions: int
    p50: timedelta
    p90: timedelta
    p99: timedelta
    max: timedelta


@dataclass(frozen=True, slots=True)
class ProblemRow:
    """One strike: where it happened and why."""

    game: str
    match_id: int
    decision: int
    seat: int
    kind: str
    message: str
    at: datetime


@dataclass(frozen=True, slots=True)
class RecentMatch:
    """One of a bot's latest matches, from its seat's point of view."""

    match_id: int
    game: str
    status: str
    seats: int
    seat: int
    rank: int | None
    score: float | None
    strikes: int
    forfeited: bool
    rating_delta: float | None
    tournament_id: int | None
    at: datetime
    version: str = ""
    """The label of the bot's version that played the match."""


@dataclass(frozen=True, slots=True)
class GameStats:
    """What a bot did in one game."""

    game: str
    matches: int = 0
    """Finished matches."""
    wins: int = 0
    """Finished matches ranked first (shared firsts included)."""
    ranks: dict[int, int] = field(default_factory=dict)
    """Rank -> finished matches with that rank."""
    mean_score: float = 0.0
    rating: float | None = None
    rated_games: int = 0
    history: tuple[RatingPoint, ...] = ()
    """The latest rating changes, oldest first."""
    strikes: int = 0
    strikes_by_kind: dict[str, int] = field(default_factory=dict)
    forfeits: int = 0
    think: ThinkTimes | None = None
    problems: tuple[ProblemRow, ...] = ()
    """The latest strikes, newest first."""

    @property
    def timeouts(self) -> int:
        """Decisions the bot did not answer in time."""
        return self.strikes_by_kind.get("timeout", 0)


@dataclass(frozen=True, slots=True)
class BotStats:
    """A bot's statistics in every game it has played or is rated in."""

    bot_id: int
    name: str
    created_at: datetime
    games: tuple[GameStats, ...]
    recent: tuple[RecentMatch, ...]
    """The latest matches over every game, newest first."""

    def game(self, name: str) -> GameStats | None:
        """The statistics of one game, if the bot has any there."""
        return next((g for g in self.games if g.game == name), None)


async def bot_stats(
    db: Database,
    name: str,
    *,
    problems: int = 10,
    history: int = 200,
    recent: int = 20,
    version: str | None = None,
) -> BotStats | None:
    """The statistics of the bot called `name` (of its `version` only, if given), or None if
    there is no such bot."""
    bot = await db.bot_by_name(name)
    if bot is None:
        return None
    rows: dict[str, list[dict[str, Any]]] = {}
    params = {"bot_id": bot.id, "limit": history, "version": version}
    what = f"read statistics of bot {name!r}"
    async with db.transaction(what) as conn, conn.cursor(row_factory=dict_row) as cursor:
        for key, sql, args in (
            ("bot_results", query("bot_results"), params),
            ("bot_ratings", query("bot_ratings"), params),
            ("bot_rating_history", query("bot_rating_history"), params),
            ("bot_think_times", query("bot_think_times"), params),
            ("bot_strikes", query("bot_strikes"), params),
            ("bot_recent_matches", query("bot_recent_matches"), {**params, "limit": recent}),
        ):
            await cursor.execute(sql, args)
            rows[key] = await cursor.fetchall()
    games = sorted(
        {r["game"] for r in rows["bot_results"]}
        | {r["game"] for r in rows["bot_ratings"]}
        | {r["game"] for r in rows["bot_strikes"]}
        | {r["game"] for r in rows["bot_recent_matches"]}
    )
    return BotStats(
        bot_id=bot.id,
        name=bot.name,
        created_at=bot.created_at,
        games=tuple(_game(game, rows, problems) for game in games),
        recent=tuple(_recent(r) for r in rows["bot_recent_matches"]),
    )


def _game(game: str, rows: dict[str, list[dict[str, Any]]], problems: int) -> GameStats:
    results = [r for r in rows["bot_results"] if r["game"] == game]
    matches = sum(int(r["matches"]) for r in results)
    scored = sum(float(r["mean_score"] or 0.0) * int(r["matches"]) for r in results)
    rating = next((r for r in rows["bot_ratings"] if r["game"] == game), None)
    strikes = [_problem(r) for r in rows["bot_strikes"] if r["game"] == game]
    think = next((r for r in rows["bot_think_times"] if r["game"] == game), None)
    return GameStats(
        game=game,
        matches=matches,
        wins=sum(int(r["matches"]) for r in results if r["rank"] == 1),
        ranks={int(r["rank"]): int(r["matches"]) for r in results if r["rank"] is not None},
        mean_score=scored / matches if matches else 0.0,
        rating=None if rating is None else float(rating["rating"]),
        rated_games=0 if rating is None else int(rating["games"]),
        history=tuple(
            RatingPoint(r["match_id"], r["before"], r["after"], r["delta"], r["created_at"])
            for r in rows["bot_rating_history"]
            if r["game"] == game
        ),
        strikes=len(strikes),
        strikes_by_kind=dict(Counter(p.kind for p in strikes)),
        forfeits=sum(int(r["forfeits"]) for r in results),
        think=None if think is None else _think(think),
        problems=tuple(strikes[:problems]),
    )


def _seconds(value: Any) -> timedelta:
    return timedelta(seconds=float(value or 0.0))


def _think(row: dict[str, Any]) -> ThinkTimes:
    return ThinkTimes(
        decisions=int(row["decisions"]),
        p50=_seconds(row["p50"]),
        p90=_seconds(row["p90"]),
        p99=_seconds(row["p99"]),
        max=_seconds(row["max"]),
    )


def _problem(row: dict[str, Any]) -> ProblemRow:
    return ProblemRow(
        game=row["game"],
        match_id=int(row["match_id"]),
        decision=int(row["decision"]),
        seat=int(row["seat"]),
        kind=row["kind"],
        message=row["message"],
        at=row["created_at"],
    )


def _recent(row: dict[str, Any]) -> RecentMatch:
    return RecentMatch(
        match_id=int(row["match_id"]),
        game=row["game"],
        status=row["status"],
        seats=int(row["seats"]),
        seat=int(row["seat"]),
        rank=row["rank"],
        score=row["score"],
        strikes=int(row["strikes"]),
        forfeited=bool(row["forfeited"]),
        rating_delta=row["rating_delta"],
        tournament_id=row["tournament_id"],
        at=row["finished_at"] or row["created_at"],
        version=row["version"],
    )


async def rating_trends(
    db: Database, game: str, bot_ids: list[int], points: int = 20
) -> dict[int, list[float]]:
    """Bot id -> its latest `points` ratings in `game`, oldest first (for sparklines)."""
    params = {"game": game, "bot_ids": bot_ids, "points": points}
    out: dict[int, list[float]] = {bot_id: [] for bot_id in bot_ids}
    async with db.transaction(f"read rating trends of {game}") as conn:
        cursor = await conn.execute(query("rating_trends"), params)
        for bot_id, after in await cursor.fetchall():
            out[int(bot_id)].append(float(after))
    return out


async def version_labels(db: Database, bot_id: int) -> list[str]:
    """The labels of a bot's versions, oldest first."""
    async with db.transaction("read bot versions") as conn:
        cursor = await conn.execute(query("bot_version_labels"), {"bot_id": bot_id})
        return [label for (label,) in await cursor.fetchall()]
