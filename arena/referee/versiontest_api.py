"""The RPCs of version tests: start, read, stop and list them (docs/versiontests.md)."""

from __future__ import annotations

from arena.referee import arguments
from arena.referee.app import Referee
from arena.referee.guard import CALLER
from arena.referee.rpc import (
    VERSION_TEST_REFUSALS,
    Context,
    answer,
    checked,
    game_options,
)
from arena.v1 import arena_pb2
from arena.versiontest import store
from arena.versiontest.gsprt import Hypotheses
from arena.versiontest.sets import MATCHES_PER_SET

STATUSES = {
    "running": arena_pb2.VERSION_TEST_STATUS_RUNNING,
    "h0": arena_pb2.VERSION_TEST_STATUS_H0,
    "h1": arena_pb2.VERSION_TEST_STATUS_H1,
    "capped": arena_pb2.VERSION_TEST_STATUS_CAPPED,
    "stopped": arena_pb2.VERSION_TEST_STATUS_STOPPED,
}
SET_STATUSES = {
    "playing": arena_pb2.VERSION_TEST_SET_STATUS_PLAYING,
    "counted": arena_pb2.VERSION_TEST_SET_STATUS_COUNTED,
    "void": arena_pb2.VERSION_TEST_SET_STATUS_VOID,
}


STATUS_OF = {wire: store.TestStatus(name) for name, wire in STATUSES.items()}


class VersionTestApi:
    """StartVersionTest, GetVersionTest, StopVersionTest, ListVersionTests."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.db = referee.db

    @checked
    async def StartVersionTest(
        self, request: arena_pb2.StartVersionTestRequest, context: Context
    ) -> arena_pb2.VersionTest:
        """Start a version test (an organiser, the owner of both sides, or an admin)."""
        arguments.text("game", request.game)
        candidate = arguments.entrant("candidate", request.candidate)
        baseline = arguments.entrant("baseline", request.baseline)
        if len(request.fillers) > arguments.TEST_FILLERS:
            raise arguments.InvalidArgument(
                "fillers", f"at most {arguments.TEST_FILLERS} bots, got {len(request.fillers)}"
            )
        fillers = tuple(
            arguments.entrant(f"fillers[{k}]", name) for k, name in enumerate(request.fillers)
        )
        elo0 = arguments.real("elo0", request.elo0, *arguments.TEST_ELO)
        elo1 = arguments.real("elo1", request.elo1, *arguments.TEST_ELO)
        if not elo0 < elo1:
            raise arguments.InvalidArgument("elo1", f"must exceed elo0 ({elo0:g}), got {elo1:g}")
        alpha = arguments.real("alpha", request.alpha, *arguments.TEST_ERROR_RATE) or 0.05
        beta = arguments.real("beta", request.beta, *arguments.TEST_ERROR_RATE) or 0.05
        seats = arguments.integer("seats", request.seats, *arguments.TEST_SEATS) or 2
        cap = arguments.integer("max_matches", request.max_matches, *arguments.TEST_MAX_MATCHES)
        in_flight = arguments.integer("in_flight", request.in_flight, *arguments.TEST_IN_FLIGHT)
        clock = arguments.request_clock(self.referee.config.default_clock, request)
        spec = store.VersionTestSpec(
            game=request.game,
            candidate=candidate,
            baseline=baseline,
            hypotheses=Hypotheses(elo0, elo1, alpha, beta),
            seats=seats,
            fillers=fillers,
            max_matches=cap or None,
            in_flight=in_flight or 2,
            clock=clock,
            options=game_options(request.options),
            owner_id=CALLER.get().account_id,
        )

        async def start() -> arena_pb2.VersionTest:
            return version_test_message(
                await store.report(self.db, await store.start(self.db, spec))
            )

        return await answer(context, "StartVersionTest", start, VERSION_TEST_REFUSALS)

    @checked
    async def GetVersionTest(
        self, request: arena_pb2.GetVersionTestRequest, context: Context
    ) -> arena_pb2.VersionTest:
        """A version test with its sets and estimate."""
        arguments.positive_id("test_id", request.test_id)

        async def read() -> arena_pb2.VersionTest:
            return version_test_message(await store.report(self.db, request.test_id))

        return await answer(context, "GetVersionTest", read, VERSION_TEST_REFUSALS)

    @checked
    async def StopVersionTest(
        self, request: arena_pb2.StopVersionTestRequest, context: Context
    ) -> arena_pb2.VersionTest:
        """Stop a running version test (its starter, an organiser, a two-sided owner, an admin)."""
        arguments.positive_id("test_id", request.test_id)

        async def stop() -> arena_pb2.VersionTest:
            await store.stop(self.db, request.test_id)
            return version_test_message(await store.report(self.db, request.test_id))

        return await answer(context, "StopVersionTest", stop, VERSION_TEST_REFUSALS)

    @checked
    async def ListVersionTests(
        self, request: arena_pb2.ListVersionTestsRequest, context: Context
    ) -> arena_pb2.ListVersionTestsResponse:
        """The newest tests first, optionally of one status."""
        limit = arguments.limit("limit", request.limit, 50, 500)
        status = None
        if request.status:
            names = {wire: test.value for wire, test in STATUS_OF.items()}
            status = store.TestStatus(arguments.choice("status", request.status, names))

        async def listing() -> arena_pb2.ListVersionTestsResponse:
            rows = await store.listing(self.db, status, limit)
            return arena_pb2.ListVersionTestsResponse(tests=[listed_message(r) for r in rows])

        return await answer(context, "ListVersionTests", listing, VERSION_TEST_REFUSALS)


def listed_message(row: store.Listed) -> arena_pb2.VersionTest:
    """The wire form of a test in a list: no sets, no estimate."""
    hyp = Hypotheses(row.elo0, row.elo1, row.alpha, row.beta)
    out = arena_pb2.VersionTest(
        test_id=row.id,
        game=row.game,
        candidate=row.candidate,
        baseline=row.baseline,
        seats=row.seats,
        elo0=row.elo0,
        elo1=row.elo1,
        alpha=row.alpha,
        beta=row.beta,
        status=STATUSES[row.status],
        llr=row.llr,
        lower_bound=hyp.lower,
        upper_bound=hyp.upper,
        matches_counted=MATCHES_PER_SET * row.sets_counted,
        owner=row.owner,
    )
    out.created_at.FromDatetime(row.created_at)
    if row.finished_at is not None:
        out.finished_at.FromDatetime(row.finished_at)
    return out


def version_test_message(report: store.Report) -> arena_pb2.VersionTest:
    """The wire form of a test's report."""
    test, hyp, est = report.test, report.test.hypotheses, report.estimate
    out = arena_pb2.VersionTest(
        test_id=test.id,
        game=test.game,
        candidate=test.candidate,
        baseline=test.baseline,
        fillers=list(test.fillers),
        seats=test.seats,
        elo0=hyp.elo0,
        elo1=hyp.elo1,
        alpha=hyp.alpha,
        beta=hyp.beta,
        max_matches=test.max_matches or 0,
        status=STATUSES[test.status],
        llr=test.llr,
        lower_bound=hyp.lower,
        upper_bound=hyp.upper,
        matches_counted=report.matches_counted,
        elo=est.elo,
        elo_low=est.low if est.sets else 0.0,
        elo_high=est.high if est.sets else 0.0,
        owner=test.owner or "",
    )
    out.created_at.FromDatetime(test.created_at)
    if test.finished_at is not None:
        out.finished_at.FromDatetime(test.finished_at)
    for s in report.sets:
        item = out.sets.add(
            set_no=s.set_no,
            attempt=s.attempt,
            status=SET_STATUSES[s.status],
            score=s.score or 0.0,
            llr=s.llr or 0.0,
            match_ids=list(s.match_ids),
        )
        if s.counted_at is not None:
            item.counted_at.FromDatetime(s.counted_at)
    return out
