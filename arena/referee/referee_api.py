"""ListReferees: the live referees of the arena and their load, as any referee sees them."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import grpc

from arena.referee.app import Referee
from arena.referee.registry import RefereeInfo
from arena.referee.rpc import Context, checked, fail
from arena.v1 import arena_pb2


class RefereeApi:
    """ListReferees."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.started_at = time.time()

    @checked
    async def ListReferees(
        self, request: arena_pb2.ListRefereesRequest, context: Context
    ) -> arena_pb2.ListRefereesResponse:
        """Every live referee, by name; a referee without Redis lists only itself."""
        cluster = self.referee.cluster
        if cluster is None:
            config = self.referee.config
            alone = RefereeInfo(
                name=config.host,
                address=config.address,
                hosted=len(self.referee.runners),
                bots=len(self.referee.hub.sessions()),
                draining=self.referee.draining,
                started_at=self.started_at,
                seen_at=time.time(),
            )
            return arena_pb2.ListRefereesResponse(referees=[referee_message(alone)])
        try:
            live = await cluster.registry.live()
        except Exception as exc:  # Redis is down: say so rather than list nobody
            await fail(
                context,
                "ListReferees",
                grpc.StatusCode.UNAVAILABLE,
                f"the arena's Redis does not answer ({type(exc).__name__}); try again shortly",
            )
        return arena_pb2.ListRefereesResponse(referees=[referee_message(r) for r in live])


def referee_message(info: RefereeInfo) -> arena_pb2.Referee:
    """The wire form of a live referee."""
    out = arena_pb2.Referee(
        name=info.name,
        address=info.address,
        hosted_matches=info.hosted,
        connected_bots=info.bots,
        draining=info.draining,
    )
    out.seen_at.FromDatetime(datetime.fromtimestamp(info.seen_at, UTC))
    out.started_at.FromDatetime(datetime.fromtimestamp(info.started_at, UTC))
    return out
