"""The seats of a match on the referee: who holds them, their clocks, strikes and results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.referee import requests
from arena.referee.clock import SeatClock
from arena.referee.sessions import Hub
from arena.storage.rows import DecisionRow, SeatResult
from arena.v1 import bot_pb2, common_pb2
from engines import Outcome, Termination


@dataclass
class SeatState:
    """A seat's bot and how it is doing."""

    bot_id: int
    bot_name: str
    clock: SeatClock
    strikes: int = 0
    forfeited: bool = False
    resigned: bool = False


def restore(
    seats: Sequence[SeatState],
    logged: Sequence[DecisionRow],
    resigned: Sequence[int],
    max_strikes: int,
) -> None:
    """Rebuild strikes, forfeits and clocks of a resumed match from its logged decisions,
    and the resignations stored on its seats."""
    for seat in resigned:
        seats[seat].resigned = seats[seat].forfeited = True
    for row in logged:
        for seat, taken in row.elapsed.items():
            seats[seat].clock.charge(taken)
        for seat in row.strikes:
            seats[seat].strikes += 1
    for s in seats:
        s.forfeited = s.forfeited or bool(max_strikes and s.strikes >= max_strikes)


def ranked(outcome: Outcome, seats: Sequence[SeatState]) -> Outcome:
    """The rules' outcome, with forfeited seats moved below every other seat."""
    forfeited = {i for i, s in enumerate(seats) if s.forfeited}
    if not forfeited:
        return outcome
    keys = [(0.0 if i in forfeited else 1.0, -float(outcome.ranks[i])) for i in range(len(seats))]
    return Outcome.from_keys(keys, outcome.scores, Termination.FORFEIT)


def results(outcome: Outcome, seats: Sequence[SeatState]) -> list[SeatResult]:
    """What storage keeps of each seat at the end."""
    return [
        SeatResult(
            rank=outcome.ranks[i],
            score=outcome.scores[i],
            strikes=s.strikes,
            forfeited=s.forfeited,
            time_used=s.clock.used,
        )
        for i, s in enumerate(seats)
    ]


def end_message(
    match_id: int,
    outcome: Outcome,
    seats: Sequence[SeatState],
    rating_changes: Mapping[int, float],
) -> bot_pb2.MatchEnd:
    """The MatchEnd every seat receives (its own seat is filled in per bot)."""
    return bot_pb2.MatchEnd(
        match_id=match_id,
        termination=requests.TERMINATIONS[outcome.termination.value],
        results=[
            common_pb2.SeatResult(
                seat=i,
                bot=s.bot_name,
                rank=outcome.ranks[i],
                score=outcome.scores[i],
                strikes=s.strikes,
                forfeited=s.forfeited,
                rating_change=rating_changes.get(s.bot_id, 0.0),
            )
            for i, s in enumerate(seats)
        ],
    )


def aborted_message(match_id: int, seats: Sequence[SeatState], reason: str) -> bot_pb2.MatchEnd:
    """The MatchEnd of a match the referee could not go on with."""
    return bot_pb2.MatchEnd(
        match_id=match_id,
        termination=common_pb2.TERMINATION_ABORTED,
        results=[
            common_pb2.SeatResult(seat=i, bot=s.bot_name, strikes=s.strikes)
            for i, s in enumerate(seats)
        ],
        reason=reason,
    )


def send_end(hub: Hub, seats: Sequence[SeatState], end: bot_pb2.MatchEnd) -> None:
    """Send `end` to every seat's bot, each with its own seat filled in."""
    for seat, s in enumerate(seats):
        message = bot_pb2.ArenaMessage()
        message.match_end.CopyFrom(end)
        message.match_end.seat = seat
        hub.send(s.bot_id, message)


def absent(hub: Hub, seats: Sequence[SeatState]) -> list[int]:
    """The seats whose bot has no open stream, here or on another referee."""
    return [i for i, s in enumerate(seats) if not hub.is_connected(s.bot_id)]
