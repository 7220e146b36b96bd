"""A tournament's results so far, read from its tables, and the standings stored from them."""

from __future__ import annotations

from dataclasses import dataclass

from arena.storage import Database
from arena.storage.sql import query
from arena.storage.tournaments import (
    TournamentRow,
    active_entrant_ids,
    bye_ids,
    entrant_ids,
    ratings_of,
    round_rows,
    standing_records,
)
from arena.tournament.pairing import History, RoundResult, TableResult, standings
from arena.tournament.standings import Entrant, to_units
from arena.tournament.tables import tables


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of a tournament's standings."""

    position: int
    bot_id: int
    bot: str
    score: float
    tiebreak: float
    rating: float
    byes: int
    rounds_played: int
    withdrawn: bool = False
    """Whether the bot has left the tournament (it keeps its place in the standings)."""


async def results(db: Database, info: TournamentRow, before: int) -> list[RoundResult]:
    """The decided tables and the byes of every round before `before`."""
    out = []
    for round_no in range(1, before):
        played = await tables(db, info.id, round_no)
        byes = await bye_ids(db, info.id, round_no)
        decided = (TableResult(t.bot_ids, t.ranks) for t in played if t.is_over)
        out.append(RoundResult(info.table_size, tuple(decided), tuple(byes)))
    return out


async def standings_and_history(
    db: Database, info: TournamentRow, round_no: int
) -> tuple[tuple[Entrant, ...], History]:
    """The standings of the entrants who play `round_no`, and who has met whom before it."""
    bots = await active_entrant_ids(db, info.id, round_no)
    before = await results(db, info, round_no)
    history = History()
    for result in before:
        history = history.after(t.bots for t in result.tables)
    return standings(bots, before, await ratings_of(db, info.game, bots)), history


async def update_standings(db: Database, info: TournamentRow) -> None:
    """Recompute the stored standings from every finished round."""
    finished = [r for r in await round_rows(db, info.id) if r.is_finished]
    upto = (max(r.round_no for r in finished) + 1) if finished else 1
    bots = await entrant_ids(db, info.id)
    played_rounds = await results(db, info, upto)
    entrants = standings(bots, played_rounds, await ratings_of(db, info.game, bots))
    played = {b: 0 for b in bots}
    opponents = {b: 0 for b in bots}
    opponents_points = {b: 0 for b in bots}
    score_of = {e.bot: e.score for e in entrants}
    for result in played_rounds:
        for table in result.tables:
            for bot in table.bots:
                played[bot] += 1
                for other in table.bots:
                    if other != bot:
                        opponents[bot] += 1
                        opponents_points[bot] += to_units(score_of[other])
    async with db.transaction("update standings") as conn:
        await conn.execute(query("link_matches"), {"tournament_id": info.id})
        await conn.execute(
            query("upsert_standings"),
            {
                "tournament_id": info.id,
                "bot_ids": [e.bot for e in entrants],
                "scores": [float(e.score) for e in entrants],
                "tiebreaks": [float(e.tiebreak) for e in entrants],
                "byes": [e.byes for e in entrants],
                "short_tables": [e.short_tables for e in entrants],
                "rounds_played": [played[e.bot] for e in entrants],
                "points": [to_units(e.score) for e in entrants],
                "opponents_points": [opponents_points[e.bot] for e in entrants],
                "opponents": [opponents[e.bot] for e in entrants],
            },
        )


async def standings_of(db: Database, tournament_id: int) -> list[StandingRow]:
    """The stored standings, best first."""
    return [
        StandingRow(
            i + 1,
            r.bot_id,
            r.name,
            r.score,
            r.tiebreak,
            r.rating,
            r.byes,
            r.rounds_played,
            r.withdrawn_round is not None,
        )
        for i, r in enumerate(await standing_records(db, tournament_id))
    ]
