"""The short status `arena up` prints instead of its services' logs: a line per finished match and
per tournament round, polled from the referee's public API.
"""

from __future__ import annotations

import grpc

from arena.sdk.tls import PLAINTEXT, ClientTls
from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2

STATUS = {
    v: k.removeprefix("TOURNAMENT_STATUS_").lower() for k, v in arena_pb2.TournamentStatus.items()
}


def _ordinal_rank(seat: common_pb2.SeatResult) -> str:
    return f"{seat.bot} #{seat.rank}" + (" (forfeit)" if seat.forfeited else "")


def match_line(match: arena_pb2.Match) -> str:
    """`match 12 finished: hart, alice #1, bob #2, carol #2 (tournament 3)`."""
    seats = sorted(match.seats, key=lambda s: (s.rank, s.seat))
    where = f" (tournament {match.tournament_id})" if match.tournament_id else ""
    ranks = ", ".join(_ordinal_rank(s) for s in seats)
    return f"match {match.match_id} finished: {match.game}, {ranks}{where}"


def tournament_line(t: arena_pb2.Tournament) -> str:
    """`tournament 3 "spring": round 2/5 running`."""
    return (
        f'tournament {t.tournament_id} "{t.name}": round {max(t.current_round, 0)}/{t.rounds} '
        f"{STATUS.get(t.status, '?')}"
    )


class StatusWatcher:
    """Remembers what was already reported; `poll()` returns lines for what changed since."""

    def __init__(self, address: str, tls: ClientTls = PLAINTEXT) -> None:
        self.address = address
        self.tls = tls
        self._seen_matches: set[int] | None = None
        self._tournaments: dict[int, tuple[int, int]] = {}
        self._unreachable = False

    def poll(self) -> list[str]:
        """New lines since the last poll (the first poll only takes note of what exists)."""
        try:
            with self.tls.channel(self.address) as channel:
                api = arena_pb2_grpc.ArenaServiceStub(channel)
                matches = api.ListMatches(
                    arena_pb2.ListMatchesRequest(status=common_pb2.MATCH_STATUS_FINISHED),
                    timeout=5,
                ).matches
                tournaments = api.ListTournaments(
                    arena_pb2.ListTournamentsRequest(limit=20), timeout=5
                ).tournaments
        except grpc.RpcError as exc:
            if self._unreachable:
                return []
            self._unreachable = True
            code = exc.code().name if hasattr(exc, "code") else type(exc).__name__
            return [f"the referee does not answer ({code}); see its log"]
        lines = ["the referee answers again"] if self._unreachable else []
        self._unreachable = False
        first = self._seen_matches is None
        seen = self._seen_matches if self._seen_matches is not None else set()
        for match in sorted(matches, key=lambda m: m.match_id):
            if match.match_id not in seen:
                seen.add(match.match_id)
                if not first:
                    lines.append(match_line(match))
        self._seen_matches = seen
        for t in sorted(tournaments, key=lambda t: t.tournament_id):
            state = (t.status, t.current_round)
            if self._tournaments.get(t.tournament_id) != state:
                if not first or t.status == arena_pb2.TOURNAMENT_STATUS_RUNNING:
                    lines.append(tournament_line(t))
                self._tournaments[t.tournament_id] = state
        return lines
