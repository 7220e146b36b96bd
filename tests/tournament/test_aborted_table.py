"""An aborted table is replayed once; a replay that aborts too scores as a tie and is not rated."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

import engines
from arena.storage import MatchStatus
from arena.tournament import rounds as tournaments
from arena.tournament.hosting import host_table, table_seed
from arena.tournament.recovery import Nudge
from arena.tournament.tables import Table
from tests.referee.bots import RandomBot
from tests.referee.harness import ADMIN, FAST_CLOCK, playing, register, running_referee

pytestmark = pytest.mark.integration

Explodes = Callable[[int], bool]
"""Whether the match with this seed raises from the engine at its first decision."""


def _break_hart(monkeypatch: pytest.MonkeyPatch, explodes: Explodes) -> None:
    rules = engines.get("hart")
    real_step = type(rules).step

    def exploding(self: Any, state: Any, decision: Any, actions: Any, rng: Any) -> Any:
        # The referee's per-decision stream is keyed "<match seed>:decision:<n>".
        seed = int(str(rng._material).split(":")[0])
        if decision.number == 1 and explodes(seed):
            raise RuntimeError("the engine exploded")
        return real_step(self, state, decision, actions, rng)

    monkeypatch.setattr(type(rules), "step", exploding)


def _play_two_rounds(
    url: str, monkeypatch: pytest.MonkeyPatch, explodes: Callable[[int, str], Explodes]
) -> tuple[int, list[list[int]], list[float]]:
    """Round 1 under `explodes(tournament seed, salt)`, round 2 unbroken; returns the tournament,
    round 1's hosted ranks and the scores after round 1."""
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    broken: dict[str, Explodes] = {"now": lambda seed: False}
    _break_hart(monkeypatch, lambda seed: broken["now"](seed))

    async def scenario() -> tuple[int, list[list[int]], list[float]]:
        async with running_referee(url) as server:
            monkeypatch.setenv("ARENA_REFEREE_ADDRESS", server.address)
            names = [f"x{i}" for i in range(6)]
            tokens = [await register(server.address, n) for n in names]
            bots = [RandomBot(seed=i) for i in range(len(names))]
            db = server.referee.db
            async with playing(list(zip(bots, tokens, strict=True)), server.address):
                tid = await tournaments.create_tournament(
                    db,
                    name="aborts",
                    game="hart",
                    bot_names=names,
                    table_size=3,
                    rounds=2,
                    clock=FAST_CLOCK,
                    seed=7,
                )
                async with db.transaction("salt") as conn:
                    cursor = await conn.execute(
                        "SELECT seed_salt::text FROM tournaments WHERE id = %s", (tid,)
                    )
                    salt = str((await cursor.fetchone() or ("",))[0])
                broken["now"] = explodes(7, salt)
                step = await tournaments.start(db, tid)
                hosted = await asyncio.wait_for(
                    asyncio.gather(*(host_table(tid, 1, t.table_no) for t in step.tables)), 60
                )
                assert await tournaments.progress(db, tid) == (2, 2)
                assert [r.action for r in await tournaments.stalled(db)] == [Nudge.CLOSE]
                step = await tournaments.close_round(db, tid, 1)
                assert step.closed_now and step.round_no == 2
                standings = await tournaments.standings_of(db, tid)
                assert all(s.rounds_played == 1 for s in standings)
                broken["now"] = lambda seed: False
                await asyncio.wait_for(
                    asyncio.gather(*(host_table(tid, 2, t.table_no) for t in step.tables)), 60
                )
                final = await tournaments.close_round(db, tid, 2)
                assert final.finished
                return tid, [h["ranks"] for h in hosted], [s.score for s in standings]

    return asyncio.run(scenario())


def _matches(url: str, tid: int) -> list[tuple[Any, ...]]:
    """(round, table, attempt, status, rated, rating changes, linked to its table) per match."""
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT m.round_no, m.table_no, m.attempt, m.status::text, m.rated, "
            "(SELECT count(*) FROM rating_changes r WHERE r.match_id = m.id), "
            "t.match_id = m.id "
            "FROM matches m JOIN tournament_tables t ON t.tournament_id = m.tournament_id "
            "AND t.round_no = m.round_no AND t.table_no = m.table_no "
            "WHERE m.tournament_id = %s ORDER BY m.round_no, m.table_no, m.attempt",
            (tid,),
        ).fetchall()


def test_an_aborted_table_is_replayed_once_and_the_replay_decides_it(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def first_attempts(seed: int, salt: str) -> Explodes:
        firsts = {table_seed(seed, salt, 1, table) for table in (1, 2)}
        return lambda match_seed: match_seed in firsts

    tid, hosted, scores = _play_two_rounds(fresh_database_url, monkeypatch, first_attempts)
    assert hosted != [[1, 1, 1], [1, 1, 1]], "the replays were played out, not scored as ties"
    assert set(scores) != {0.5}
    assert _matches(fresh_database_url, tid) == [
        (1, 1, 1, "aborted", False, 0, False),
        (1, 1, 2, "finished", True, 3, True),
        (1, 2, 1, "aborted", False, 0, False),
        (1, 2, 2, "finished", True, 3, True),
        (2, 1, 1, "finished", True, 3, True),
        (2, 2, 1, "finished", True, 3, True),
    ]


def test_a_table_whose_replay_aborts_too_scores_as_a_tie_unrated(
    fresh_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def every_attempt(seed: int, salt: str) -> Explodes:
        return lambda match_seed: True

    tid, hosted, scores = _play_two_rounds(fresh_database_url, monkeypatch, every_attempt)
    assert hosted == [[1, 1, 1], [1, 1, 1]]
    assert set(scores) == {0.5}, "every seat of a tie scores alike"
    assert _matches(fresh_database_url, tid) == [
        (1, 1, 1, "aborted", False, 0, False),
        (1, 1, 2, "aborted", False, 0, True),
        (1, 2, 1, "aborted", False, 0, False),
        (1, 2, 2, "aborted", False, 0, True),
        (2, 1, 1, "finished", True, 3, True),
        (2, 2, 1, "finished", True, 3, True),
    ]


def test_a_table_with_an_aborted_first_attempt_keeps_its_round_open() -> None:
    table = Table(1, 1, (1, 2, 3), 9, MatchStatus.ABORTED, (), 1)
    assert table.needs_replay and not table.is_over
    replayed = Table(1, 1, (1, 2, 3), 10, MatchStatus.ABORTED, (), 2)
    assert replayed.is_over and not replayed.needs_replay
