"""The wire forms of stored matches, tournaments and schedules, and the enum tables they use."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

from arena.protocol import wire
from arena.referee import requests
from arena.referee.clock import Clock
from arena.storage.rows import MatchRow, MatchStatus
from arena.storage.tournaments import TournamentRow
from arena.tournament import schedules
from arena.tournament.rounds import StandingRow
from arena.v1 import arena_pb2, common_pb2

ENDED = (MatchStatus.FINISHED, MatchStatus.ABORTED)
"""Statuses after which a match's seed and every seat's actions are public."""
STATUSES = {
    "pending": common_pb2.MATCH_STATUS_PENDING,
    "running": common_pb2.MATCH_STATUS_RUNNING,
    "finished": common_pb2.MATCH_STATUS_FINISHED,
    "aborted": common_pb2.MATCH_STATUS_ABORTED,
}
STATUS_NAMES = {v: k for k, v in STATUSES.items()}
TOURNAMENT_STATUSES = {
    "scheduled": arena_pb2.TOURNAMENT_STATUS_SCHEDULED,
    "running": arena_pb2.TOURNAMENT_STATUS_RUNNING,
    "finished": arena_pb2.TOURNAMENT_STATUS_FINISHED,
    "cancelled": arena_pb2.TOURNAMENT_STATUS_CANCELLED,
}
TOURNAMENT_STATUS_NAMES = {v: k for k, v in TOURNAMENT_STATUSES.items()}

# Tournament formats and rating systems: wire enum value <-> stored name.
FORMATS = {0: "swiss", 1: "swiss", 2: "round_robin"}
FORMAT_CODES = {"swiss": 1, "round_robin": 2}
RATING_SYSTEMS = {0: "elo", 1: "elo", 2: "openskill"}
RATING_SYSTEM_CODES = {"elo": 1, "openskill": 2}


def match_message(
    row: MatchRow, decisions: int, changes: dict[tuple[int, int], float]
) -> arena_pb2.Match:
    """The wire form of a stored match that has made `decisions` decisions."""
    aborted = row.status is MatchStatus.ABORTED
    termination = "aborted" if aborted else row.termination or ""
    out = arena_pb2.Match(
        match_id=row.id,
        game=row.game,
        status=STATUSES.get(row.status.value, common_pb2.MATCH_STATUS_UNSPECIFIED),
        termination=requests.TERMINATIONS.get(termination, 0),  # type: ignore[arg-type]
        decisions=decisions,
        tournament_id=row.tournament_id or 0,
        options=requests.struct_of(dict(row.options)),
        abort_reason=(row.termination or "") if aborted else "",
        host=row.host or "",
    )
    out.created_at.FromDatetime(row.created_at)
    if row.finished_at is not None:
        out.finished_at.FromDatetime(row.finished_at)
    for seat in row.seating:
        out.seats.append(
            common_pb2.SeatResult(
                seat=seat.seat,
                bot=seat.bot_name,
                rank=seat.rank or 0,
                score=seat.score or 0.0,
                strikes=seat.strikes,
                forfeited=seat.forfeited,
                rating_change=changes.get((row.id, seat.bot_id), 0.0),
                version=seat.version,
            )
        )
    return out


def match_event(
    match_id: int, game: str, number: int, label: str, view: Any
) -> arena_pb2.MatchEvent:
    """What a spectator receives after decision `number`: the public view, as JSON and typed."""
    event = arena_pb2.MatchEvent(
        match_id=match_id, decision=number, label=label, view_json=wire.compact(view)
    )
    with contextlib.suppress(wire.WireError):  # the JSON form is always there
        event.view.CopyFrom(wire.view_message(game, view))
    return event


def tournament_message(
    info: TournamentRow, progress: tuple[int, int], standings: Sequence[StandingRow]
) -> arena_pb2.Tournament:
    """The wire form of a stored tournament with (tables finished, tables) and its standings."""
    done, total = progress
    out = arena_pb2.Tournament(
        tournament_id=info.id,
        name=info.name,
        game=info.game,
        status=TOURNAMENT_STATUSES[info.status.value],
        table_size=info.table_size,
        rounds=info.rounds,
        current_round=info.current_round,
        tables=total,
        tables_finished=done,
        clock=Clock.from_json(dict(info.clock)).to_proto(),
        format=FORMAT_CODES[info.format],  # type: ignore[arg-type]
        rating_system=RATING_SYSTEM_CODES[info.rating_system],  # type: ignore[arg-type]
    )
    out.starts_at.FromDatetime(info.starts_at)
    for row in standings:
        out.standings.add(
            position=row.position,
            bot=row.bot,
            score=row.score,
            tiebreak=row.tiebreak,
            rating=row.rating,
            byes=row.byes,
            rounds_played=row.rounds_played,
            withdrawn=row.withdrawn,
        )
    return out


def schedule_message(s: schedules.Schedule) -> arena_pb2.Schedule:
    """The wire form of a stored schedule."""
    out = arena_pb2.Schedule(
        schedule_id=s.id,
        name=s.name,
        game=s.game,
        bots=list(s.bot_names or ()),
        table_size=s.table_size,
        rounds=s.rounds,
        format=FORMAT_CODES[s.format],  # type: ignore[arg-type]
        rating_system=RATING_SYSTEM_CODES[s.rating_system],  # type: ignore[arg-type]
        paused=s.paused,
        editions=s.editions,
    )
    out.every.FromTimedelta(s.every)
    out.next_run.FromDatetime(s.next_run)
    return out
