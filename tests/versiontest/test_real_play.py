"""Version tests on real play: a referee, a Celery worker and beat, and reference bots over gRPC.

Per game, two tests run at once: the heuristic against the random bot (must stop with H1), and the
heuristic against a second copy of itself under another name (must stop with H0, or reach its cap
with an interval that contains 0). In Hart the worker is killed and restarted midway: the tests
carry on and count every set once.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from arena.sdk.client import StrategyBot
from arena.v1 import arena_pb2
from tests.dbfixtures import isolated_redis
from tests.referee.harness import ADMIN_METADATA, playing, register, running_referee, stub
from tests.tournament.test_celery import Celery, worker_env

BOTS = {"heur": "heuristic", "heur2": "heuristic", "rand": "random", "fill": "random"}
DEADLINE = 600.0
OPTIONS = {"crossing": {"round_cap": 40}}
"""Shorter Crossing games (150 rounds by default): the heuristic still leads by the cap."""
RUNNING = arena_pb2.VERSION_TEST_STATUS_RUNNING
Z999 = 3.2905267314918945
"""The two-sided 99.9% quantile of the normal distribution."""
# A test is itself a test: at alpha = beta = 0.05 one game in twenty would accept the wrong
# hypothesis. The wrong verdict each test here could reach is made rare (0.1%) instead.


@pytest.mark.integration
@pytest.mark.parametrize("game", ["hart", "crossing", "loyang"])
def test_heuristic_beats_random_and_ties_itself(game: str, fresh_database_url: str) -> None:
    with isolated_redis() as broker, tempfile.TemporaryDirectory() as tmp:

        async def scenario() -> tuple[arena_pb2.VersionTest, arena_pb2.VersionTest]:
            async with running_referee(fresh_database_url) as server:
                tokens = {name: await register(server.address, name) for name in BOTS}
                bots = [
                    (StrategyBot(kind, seed=k), tokens[n])
                    for k, (n, kind) in enumerate(BOTS.items())
                ]
                env = worker_env(fresh_database_url, broker, server.address, tmp)
                celery = Celery(env, Path(tmp))
                channel, api = stub(server.address)
                try:
                    async with playing(bots, server.address), channel:
                        common = dict(
                            game=game, seats=3, fillers=["fill"], in_flight=3, elo0=0.0, elo1=100.0
                        )
                        first = arena_pb2.StartVersionTestRequest(
                            candidate="heur", baseline="rand", beta=0.001, **common
                        )
                        second = arena_pb2.StartVersionTestRequest(
                            candidate="heur",
                            baseline="heur2",
                            max_matches=24,
                            alpha=0.001,
                            **common,
                        )
                        for request in (first, second):
                            request.options.update(OPTIONS.get(game, {}))
                        better = await api.StartVersionTest(first, metadata=ADMIN_METADATA)
                        same = await api.StartVersionTest(second, metadata=ADMIN_METADATA)
                        celery.start_worker()
                        celery.start_beat()
                        deadline = time.monotonic() + DEADLINE
                        restarted = game != "hart"
                        while True:
                            a, b = [
                                await api.GetVersionTest(
                                    arena_pb2.GetVersionTestRequest(test_id=t.test_id)
                                )
                                for t in (better, same)
                            ]
                            if a.status != RUNNING and b.status != RUNNING:
                                return a, b
                            if not restarted and a.matches_counted + b.matches_counted >= 4:
                                celery.kill_worker()
                                celery.start_worker()
                                restarted = True
                            if time.monotonic() > deadline:
                                pytest.fail(f"tests still running:\n{a}\n{b}\n{celery.logs()}")
                            await asyncio.sleep(0.5)
                finally:
                    celery.stop()

        better, same = asyncio.run(scenario())
    assert better.status == arena_pb2.VERSION_TEST_STATUS_H1, better
    assert better.llr >= better.upper_bound and better.elo > 0
    if same.status == arena_pb2.VERSION_TEST_STATUS_CAPPED:
        assert same.matches_counted >= 24
        _ties_within_three_errors(fresh_database_url, same)
    else:
        assert same.status == arena_pb2.VERSION_TEST_STATUS_H0, same
        assert same.llr <= same.lower_bound
    _each_set_counted_once(fresh_database_url)


def _ties_within_three_errors(url: str, test: arena_pb2.VersionTest) -> None:
    """Two copies of one bot: the mean set score lies within 3.29 standard errors of 1/2.

    The test's own 95% interval (elo_low .. elo_high) misses 0 in one capped run in twenty even
    when the bots are equal, which made this check flaky (a CI run saw +91 .. +420 Elo over 12
    sets). 3.29 errors is the two-sided 99.9% normal bound, the same 0.1% this file gives every
    other wrong verdict; a real bias (a seat the pairing failed to swap, a bot starved of time)
    still fails it.
    """
    with psycopg.connect(url) as conn:
        scores = [
            row[0]
            for row in conn.execute(
                "SELECT score FROM version_test_sets WHERE test_id = %s AND status = 'counted'",
                (test.test_id,),
            )
        ]
    n = len(scores)
    assert n >= 2, test
    mean = statistics.fmean(scores)
    error = statistics.stdev(scores) / math.sqrt(n)
    assert abs(mean - 0.5) <= Z999 * error + 1e-9, (mean, error, scores, test)


def _each_set_counted_once(url: str) -> None:
    """A counted set has exactly its two finished matches of its current attempt."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT s.test_id, s.set_no, count(m.id), bool_and(m.status = 'finished'),"
            " count(DISTINCT m.seed)"
            " FROM version_test_sets s JOIN version_test_matches vm"
            "   ON vm.test_id = s.test_id AND vm.set_no = s.set_no AND vm.attempt = s.attempt"
            " JOIN matches m ON m.id = vm.match_id WHERE s.status = 'counted'"
            " GROUP BY s.test_id, s.set_no"
        ).fetchall()
    assert rows
    for test_id, set_no, matches, finished, seeds in rows:
        assert (matches, finished, seeds) == (2, True, 1), (test_id, set_no)
