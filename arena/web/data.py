"""What the pages and the JSON API show, read from storage as JSON-ready dicts.

Every page is rendered from the same dict its `/api/...` twin returns, so the API carries
everything the pages show. Nothing here reads a token, a seed of a running match or its actions.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

import engines
from arena.referee.limits import clip
from arena.storage import botstats
from arena.storage.accounts import Accounts
from arena.storage.db import Database
from arena.storage.rows import MatchRow, MatchStatus
from arena.storage.tournaments import RatingSystem, TournamentRow
from arena.tournament import rounds as tournaments
from arena.tournament.ratings import elo_margin
from arena.web import boards, story
from arena.web.door import NotFoundError
from arena.web.steps import MatchSteps
from engines.registry import openspiel_names

ENDED = (MatchStatus.FINISHED, MatchStatus.ABORTED)


def iso(value: datetime | None) -> str | None:
    """A timestamp as ISO 8601, or None."""
    return None if value is None else value.isoformat()


def games() -> list[dict[str, Any]]:
    """The games the arena referees."""
    out = []
    for name in engines.names():
        rules = engines.get(name)
        out.append({"name": name, "title": rules.title, "seat_counts": list(rules.seat_counts)})
    return out


def check_game(game: str) -> None:
    """Raise `NotFoundError` for a game the arena does not know (a curated OpenSpiel game is
    known; its rules load only when the open-spiel wheel is installed)."""
    if game in engines.names():
        return
    if game in openspiel_names():
        try:
            engines.get(game)
        except engines.UnknownGame as exc:
            raise NotFoundError(str(exc)) from None
        return
    raise NotFoundError(f"unknown game {clip(game)!r}; known games: {', '.join(engines.names())}")


def match_summary(row: MatchRow) -> dict[str, Any]:
    """A match's public summary: who sits where and, once it is over, how each seat ended."""
    return {
        "match_id": row.id,
        "game": row.game,
        "status": row.status.value,
        "termination": row.termination,
        "tournament_id": row.tournament_id,
        "round_no": row.round_no,
        "table_no": row.table_no,
        "created_at": iso(row.created_at),
        "started_at": iso(row.started_at),
        "finished_at": iso(row.finished_at),
        "seats": [
            {
                "seat": s.seat,
                "bot": s.bot_name,
                "rank": s.rank,
                "score": s.score,
                "strikes": s.strikes,
                "forfeited": s.forfeited,
            }
            for s in row.seating
        ],
    }


SKILL_ROWS = 10_000
"""How many OpenSkill ratings a leaderboard page looks up beside the Elo rows it shows."""


async def leaderboard(db: Database, game: str, limit: int = 50) -> dict[str, Any]:
    """A game's Elo leaderboard with each bot's recent trend."""
    check_game(game)
    rows = await tournaments.leaderboard(db, game, limit)
    trends = await botstats.rating_trends(db, game, [int(r["bot_id"]) for r in rows])
    # The second system (OpenSkill, rated by tournaments that chose it) beside Elo, when any
    # bot of the game has such a rating: its conservative estimate mu - 3 sigma, as it ranks.
    skill_rows = await tournaments.leaderboard(db, game, SKILL_ROWS, RatingSystem.OPENSKILL)
    skill = {int(r["bot_id"]): round(float(r["ordinal"]), 1) for r in skill_rows}
    sigma = {int(r["bot_id"]): round(float(r["sigma"]), 2) for r in skill_rows}
    return {
        "game": game,
        "title": engines.get(game).title,
        "second_system": "OpenSkill" if skill else None,
        "entries": [
            {
                "rank": i,
                "bot": r["name"],
                "rating": round(float(r["rating"]), 1),
                "games": r["games"],
                "openskill": skill.get(int(r["bot_id"])),
                "openskill_sigma": sigma.get(int(r["bot_id"])),
                "rating_margin": _margin(int(r["games"])),
                "trend": [round(v, 1) for v in trends.get(int(r["bot_id"]), [])],
            }
            for i, r in enumerate(rows, start=1)
        ],
    }


def _margin(games: int) -> float | None:
    margin = elo_margin(games)
    return None if margin is None else round(margin, 1)


async def home(db: Database) -> dict[str, Any]:
    """Games with the top of their leaderboards, live matches, tournaments, recent matches."""
    out_games = []
    for game in games():
        board = await leaderboard(db, game["name"], 3)
        out_games.append({**game, "top": board["entries"]})
    live = await db.list_matches(status=MatchStatus.RUNNING, limit=20)
    recent = await db.recent_matches(10)
    listed = await tournaments.list_tournaments(db, None, 10)
    return {
        "games": out_games,
        "live": [match_summary(m) for m in live],
        "recent": [match_summary(m) for m in recent],
        "tournaments": [_tournament_head(t) for t in listed],
    }


def _tournament_head(t: TournamentRow) -> dict[str, Any]:
    return {
        "tournament_id": t.id,
        "name": t.name,
        "game": t.game,
        "status": t.status.value,
        "rounds": t.rounds,
        "current_round": t.current_round,
        "table_size": t.table_size,
        "starts_at": iso(t.starts_at),
        "finished_at": iso(t.finished_at),
    }


def starts(at: str | None, now: datetime | None = None) -> dict[str, str]:
    """When a tournament starts, for people: `starts_at_text` (UTC) and `starts_in`."""
    if at is None:
        return {"starts_at_text": "", "starts_in": ""}
    when = datetime.fromisoformat(at).astimezone(UTC)
    left = (when - (now or datetime.now(UTC))).total_seconds()
    if left <= 0:
        soon = "any moment now"
    elif left < 120:
        soon = f"in {left:.0f} seconds"
    elif left < 2 * 3600:
        soon = f"in {left / 60:.0f} minutes"
    elif left < 2 * 86400:
        soon = f"in {left / 3600:.0f} hours"
    else:
        soon = f"in {left / 86400:.0f} days"
    return {"starts_at_text": when.strftime("%Y-%m-%d %H:%M UTC"), "starts_in": soon}


async def tournament(db: Database, tournament_id: int) -> dict[str, Any]:
    """A tournament: its rounds and tables (with their matches) and its standings."""
    info = await tournaments.tournament(db, tournament_id)
    if info is None:
        raise NotFoundError(f"no tournament {tournament_id}")
    names = {b.id: b.name for b in await db.list_bots()}
    rounds = []
    for round_no in range(1, info.current_round + 1):
        tables = await tournaments.tables(db, tournament_id, round_no)
        rounds.append(
            {
                "round_no": round_no,
                "tables": [
                    {
                        "table_no": t.table_no,
                        "bots": [names.get(b, f"#{b}") for b in t.bot_ids],
                        "match_id": t.match_id,
                        "status": t.match_status and t.match_status.value,
                        "ranks": list(t.ranks),
                    }
                    for t in tables
                ],
            }
        )
    done, total = await tournaments.progress(db, tournament_id)
    standings = await tournaments.standings_of(db, tournament_id)
    return {
        **_tournament_head(info),
        "progress": {"tables_finished": done, "tables": total},
        "rounds_played": rounds,
        "standings": [
            {
                "position": s.position,
                "bot": s.bot,
                "score": round(s.score, 3),
                "tiebreak": round(s.tiebreak, 3),
                "rating": round(s.rating, 1),
                "byes": s.byes,
                "rounds_played": s.rounds_played,
            }
            for s in standings
        ],
    }


async def bot(db: Database, name: str) -> dict[str, Any]:
    """A bot's page: rating history per game, recent matches and diagnostics."""
    stats = await botstats.bot_stats(db, name)
    if stats is None:
        raise NotFoundError(f"unknown bot {clip(name)!r}")
    accounts = Accounts(db.pool)
    owned = await accounts.bot(name)
    versions = [] if owned is None else await accounts.versions(owned.id)
    return {
        "bot": stats.name,
        "registered_at": iso(stats.created_at),
        "owner": "" if owned is None else owned.owner,
        "retired_at": None if owned is None or owned.retired_at is None else iso(owned.retired_at),
        "versions": [
            {
                "label": v.label,
                "notes": v.notes,
                "provisional": v.provisional,
                "matches": v.matches,
                "created_at": iso(v.created_at),
            }
            for v in versions
        ],
        "games": [
            {
                "game": g.game,
                "matches": g.matches,
                "wins": g.wins,
                "ranks": {str(k): v for k, v in sorted(g.ranks.items())},
                "mean_score": round(g.mean_score, 2),
                "rating": None if g.rating is None else round(g.rating, 1),
                "rated_games": g.rated_games,
                "history": [
                    {
                        "match_id": p.match_id,
                        "before": round(p.before, 1),
                        "rating": round(p.after, 1),
                        "at": iso(p.at),
                    }
                    for p in g.history
                ],
                "timeouts": g.timeouts,
                "strikes": g.strikes,
                "strikes_by_kind": g.strikes_by_kind,
                "forfeits": g.forfeits,
                "think": None
                if g.think is None
                else {
                    "decisions": g.think.decisions,
                    "p50_ms": round(g.think.p50.total_seconds() * 1000, 1),
                    "p90_ms": round(g.think.p90.total_seconds() * 1000, 1),
                    "p99_ms": round(g.think.p99.total_seconds() * 1000, 1),
                    "max_ms": round(g.think.max.total_seconds() * 1000, 1),
                },
                "problems": [
                    {
                        "match_id": p.match_id,
                        "decision": p.decision,
                        "seat": p.seat,
                        "kind": p.kind,
                        "message": p.message,
                        "at": iso(p.at),
                    }
                    for p in g.problems
                ],
            }
            for g in stats.games
        ],
        "recent": [
            {
                "match_id": r.match_id,
                "game": r.game,
                "status": r.status,
                "seats": r.seats,
                "seat": r.seat,
                "rank": r.rank,
                "score": r.score,
                "strikes": r.strikes,
                "forfeited": r.forfeited,
                "rating_delta": None if r.rating_delta is None else round(r.rating_delta, 1),
                "tournament_id": r.tournament_id,
                "at": iso(r.at),
                "version": r.version,
            }
            for r in stats.recent
        ],
    }


async def match(db: Database, match_id: int) -> MatchRow:
    """A stored match, or `NotFoundError`."""
    row = await db.match(match_id)
    if row is None:
        raise NotFoundError(f"no match {match_id}")
    return row


RECENT_READ = timedelta(seconds=1)
"""A page of a running match's steps is served without a read this long after the last one."""


async def match_steps(
    db: Database, cache: MatchSteps, match_id: int, start: int = 0, limit: int = 200
) -> dict[str, Any]:
    """Public steps `start`.. of a match, each with its board drawn, as spectators may see them.

    A running match shows only the steps older than the spectator delay; `complete` says the
    match has ended and every step is out, and then `final` holds the stored ranking.
    """
    row = await match(db, match_id)
    # A page inside the steps read within a second is answered from memory; the tail, or any
    # page after a second, reads what is new (only that).
    steps = await cache.steps(row, read=start + limit > cache.shown(match_id, RECENT_READ))
    shown = steps[start : start + limit]
    ended = row.status in ENDED
    complete = ended and start + len(shown) >= len(steps)
    return {
        "match": match_summary(row),
        "total": len(steps),
        "from": start,
        "defs": boards.defs(row.game, steps[0].view) if start == 0 and steps else "",
        "steps": [orjson.Fragment(body) for body in await cache.encoded(row, shown)],
        "score_name": story.SCORE_NAMES.get(row.game, "score"),
        "complete": complete,
        "final": final_ranking(row) if complete else None,
    }


def final_ranking(row: MatchRow) -> dict[str, Any]:
    """How a finished match ended: its termination and every seat's rank and score."""
    ranking = sorted(row.seating, key=lambda s: (s.rank if s.rank is not None else 99, s.seat))
    return {
        "termination": row.termination,
        "ranking": [
            {"rank": s.rank, "seat": s.seat, "bot": s.bot_name, "score": s.score} for s in ranking
        ],
    }
