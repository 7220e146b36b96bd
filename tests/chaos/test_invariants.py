"""Each invariant check passes on a consistent arena and fails on one planted violation."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

import engines
from arena.chaos.answers import AnswerLog
from arena.chaos.checks import REGISTRY, Context
from arena.chaos.runner import run, run_on
from arena.tournament.ratings import DEFAULT_RATING, elo_deltas, provisional_k
from arena.tournament.standings import bye_points, match_points, to_units
from engines.driver import MatchDriver
from tests.dbfixtures import migrate_database

pytestmark = pytest.mark.integration

SEED = 7
BOTS = [1, 2, 3, 4]


def _play() -> tuple[list[dict[int, Any]], engines.Outcome]:
    """A Hart match of three seats played with default actions: its moves and outcome."""
    driver = MatchDriver(engines.get("hart"), 3, {}, SEED)
    moves = []
    while driver.decision is not None:
        for seat in driver.decision.seats:
            driver.answer(seat, driver.decision.number, driver.default(seat))
        moves.append(dict(driver.advance().wire))
    outcome = driver.outcome()
    assert outcome is not None
    return moves, outcome


def _world(conn: psycopg.Connection[Any], log: Path) -> None:
    """Bots, a finished rated tournament match (round 1 of 1, bot 4 on a bye), an aborted
    ad-hoc match, ratings, standings and bot 1's answer log, all consistent."""
    for bot in BOTS:
        conn.execute(
            "INSERT INTO bots (id, name, token_hash) VALUES (%s, %s, %s)",
            (bot, f"bot{bot}", bytes([bot]) * 32),
        )
    conn.execute(
        "INSERT INTO tournaments (id, name, game, table_size, rounds, starts_at, status, seed, "
        "current_round) VALUES (1, 't', 'hart', 3, 1, now(), 'finished', 1, 1)"
    )
    conn.execute("INSERT INTO rounds VALUES (1, 1, 'finished', now(), now(), now())")
    moves, outcome = _play()
    conn.execute(
        "INSERT INTO matches (id, game, rules_version, seats, seed, status, termination, host, "
        "tournament_id, round_no, table_no, rated, lease_epoch, finished_at) VALUES "
        "(1, 'hart', %s, 3, %s, 'finished', 'completed', NULL, 1, 1, 1, true, 2, now())",
        (engines.get("hart").version, SEED),
    )
    conn.execute("INSERT INTO tournament_tables VALUES (1, 1, 1, 1, %s)", (BOTS[:3],))
    conn.execute("INSERT INTO byes VALUES (1, 1, 4)")
    for seat in range(3):
        conn.execute(
            "INSERT INTO seats (match_id, seat, bot_id, rank, score) VALUES (1, %s, %s, %s, %s)",
            (seat, BOTS[seat], outcome.ranks[seat], outcome.scores[seat]),
        )
    for number, joint in enumerate(moves):
        conn.execute(
            "INSERT INTO decisions (match_id, number, label, joint, epoch) "
            "VALUES (1, %s, 'x', %s, %s)",
            (number, Jsonb({str(s): a for s, a in joint.items()}), 1 if number < 50 else 2),
        )
    deltas = elo_deltas([DEFAULT_RATING] * 3, outcome.ranks, [provisional_k(0)] * 3)
    for bot, delta in zip(BOTS, deltas, strict=False):
        conn.execute(
            "INSERT INTO rating_changes (bot_id, game, match_id, tournament_id, round_no, before, "
            "after, delta) VALUES (%s, 'hart', 1, 1, 1, %s, %s, %s)",
            (bot, DEFAULT_RATING, DEFAULT_RATING + delta, delta),
        )
        conn.execute(
            "INSERT INTO ratings (bot_id, game, rating, games) VALUES (%s, 'hart', %s, 1)",
            (bot, DEFAULT_RATING + delta),
        )
    points = dict(zip(BOTS, match_points(outcome.ranks), strict=False))
    points[4] = bye_points(3)
    for bot in BOTS:
        conn.execute("INSERT INTO entries (tournament_id, bot_id) VALUES (1, %s)", (bot,))
        conn.execute(
            "INSERT INTO standings (tournament_id, bot_id, points, byes, rounds_played) "
            "VALUES (1, %s, %s, %s, %s)",
            (bot, to_units(points[bot]), int(bot == 4), int(bot != 4)),
        )
    conn.execute(
        "INSERT INTO matches (id, game, rules_version, seats, seed, status, termination) "
        "VALUES (2, 'hart', 1, 3, 1, 'aborted', 'not every bot connected')"
    )
    conn.execute(
        "INSERT INTO matches (id, game, rules_version, seats, seed, status, host, lease_epoch, "
        "lease_expires) VALUES (3, 'hart', 1, 3, 1, 'running', 'ref-0', 1, "
        "now() + interval '1 hour')"
    )
    with log.open("w") as handle:
        answers = AnswerLog(handle)
        for number, joint in enumerate(moves):
            if 0 in joint:
                answers.write(e="ask", m=1, d=number, s=0)
                answers.write(e="answer", m=1, d=number, s=0, a=joint[0])
        answers.write(e="end", m=1, aborted=False)


@pytest.fixture(scope="module")
def world(database_factory: Callable[[], str], tmp_path_factory: pytest.TempPathFactory) -> Any:
    url = database_factory()
    migrate_database(url)
    log = tmp_path_factory.mktemp("answers") / "bot1.jsonl"
    with psycopg.connect(url, autocommit=True) as conn:
        _world(conn, log)
    return url, log


def _context(log: Path) -> Context:
    return Context(live_hosts=frozenset({"ref-0"}), answer_logs=[log])


@pytest.fixture
def planted(world: Any) -> Iterator[tuple[psycopg.Connection[Any], Path]]:
    """A connection in a transaction that is rolled back: plant a violation in it."""
    url, log = world
    with psycopg.connect(url) as conn:
        yield conn, log
        conn.rollback()


def test_a_consistent_arena_passes_every_check(world: Any) -> None:
    url, log = world
    results = run(url, _context(log), final=True)
    assert set(results) == {item.name for item in REGISTRY}
    assert {name: v for name, v in results.items() if v} == {}


PLANTS = {
    "match-status": "UPDATE matches SET termination = NULL WHERE id = 2",
    "leases": "UPDATE matches SET host = 'ref-9' WHERE id = 3",
    "decision-numbering": "DELETE FROM decisions WHERE match_id = 1 AND number = 5",
    "epochs": "UPDATE decisions SET epoch = 1 WHERE match_id = 1 AND number = 60",
    "replay": "UPDATE seats SET score = score + 1 WHERE match_id = 1 AND seat = 0",
    "rated-once": "UPDATE matches SET rated = true WHERE id = 2",
    "rating-chains": "UPDATE ratings SET rating = rating + 1 WHERE bot_id = 1",
    "zero-sum": "UPDATE rating_changes SET delta = delta + 1 WHERE bot_id = 1",
    "one-seat-per-round": "INSERT INTO byes VALUES (1, 1, 1)",
    "rounds-closable": "UPDATE rounds SET status = 'playing', "
    "started_at = now() - interval '1 hour'; "
    "UPDATE matches SET finished_at = now() - interval '1 hour' WHERE id = 1",
    "standings": "UPDATE standings SET points = points + 1 WHERE bot_id = 2",
}


@pytest.mark.parametrize("name", sorted(PLANTS))
def test_each_check_finds_its_planted_violation(
    name: str, planted: tuple[psycopg.Connection[Any], Path]
) -> None:
    conn, log = planted
    for statement in PLANTS[name].split("; "):
        conn.execute(statement)  # type: ignore[arg-type]
    results = run_on(conn, _context(log), final=True)
    assert results[name], f"{name} missed: {PLANTS[name]}"
    print(name, results[name])


def test_an_acknowledged_answer_missing_from_the_log_is_found(
    planted: tuple[psycopg.Connection[Any], Path], tmp_path: Path
) -> None:
    conn, _ = planted
    log = tmp_path / "liar.jsonl"
    with log.open("w") as handle:
        answers = AnswerLog(handle)
        answers.write(e="ask", m=1, d=0, s=0)
        answers.write(e="answer", m=1, d=0, s=0, a={"type": "not what was played"})
        answers.write(e="ask", m=1, d=3, s=0)
        # Unacknowledged answers are not compared: one with a Problem, or of an aborted match.
        answers.write(e="answer", m=1, d=3, s=0, a={"type": "junk"})
        answers.write(e="problem", m=1, d=3)
        answers.write(e="answer", m=2, d=0, s=0, a={"type": "junk"})
        answers.write(e="end", m=2, aborted=True)
        # Nor is one whose stream ended before the arena moved on (a lost Problem).
        answers.write(e="ask", m=1, d=5, s=0)
        answers.write(e="answer", m=1, d=5, s=0, a={"type": "junk"})
        answers.write(e="stream")
        answers.write(e="ask", m=1, d=7, s=0)
        answers.write(e="end", m=1, aborted=False)
    results = run_on(conn, Context(answer_logs=[log]), final=True)
    assert len(results["acknowledged-answers"]) == 1
    assert "decision 0 seat 0" in results["acknowledged-answers"][0]


def test_an_answer_logged_after_the_snapshot_is_left_to_the_next_check(
    planted: tuple[psycopg.Connection[Any], Path], tmp_path: Path
) -> None:
    """The checks share one snapshot, taken before the bots' logs are read: a running match's
    bot may have been asked a decision whose predecessor the snapshot does not hold yet (seven
    false violations at the end of a 30-minute soak, in the two matches still running)."""
    conn, _ = planted
    last = conn.execute("SELECT max(number) FROM decisions WHERE match_id = 1").fetchone()
    assert last is not None
    log = tmp_path / "ahead.jsonl"
    with log.open("w") as handle:
        answers = AnswerLog(handle)
        for number in (last[0] + 1, last[0] + 3):
            answers.write(e="ask", m=1, d=number, s=0)
            answers.write(e="answer", m=1, d=number, s=0, a={"type": "not logged yet"})
        answers.write(e="ask", m=1, d=last[0] + 5, s=0)
    assert run_on(conn, Context(answer_logs=[log]), final=True)["acknowledged-answers"] == []
    # A gap the snapshot does hold decisions past is still a loss.
    conn.execute("DELETE FROM decisions WHERE match_id = 1 AND number = %s", (last[0] - 1,))
    with log.open("a") as handle:
        answers = AnswerLog(handle)
        answers.write(e="ask", m=1, d=last[0] - 1, s=0)
        answers.write(e="answer", m=1, d=last[0] - 1, s=0, a={"type": "lost"})
        answers.write(e="ask", m=1, d=last[0], s=0)
    found = run_on(conn, Context(answer_logs=[log]), final=True)["acknowledged-answers"]
    assert len(found) == 1 and "logged nothing" in found[0]


def test_every_check_has_a_planted_violation() -> None:
    assert {item.name for item in REGISTRY} == {*PLANTS, "acknowledged-answers"}


def test_checks_that_must_always_hold_leave_out_the_settled_ones(world: Any) -> None:
    url, log = world
    results = run(url, _context(log), final=False)
    assert "standings" not in results and "leases" not in results
    assert "decision-numbering" in results and "replay" in results


def test_an_answer_lost_in_a_redis_outage_is_excused_only_when_asked(
    planted: tuple[psycopg.Connection[Any], Path], tmp_path: Path
) -> None:
    conn, _ = planted
    log = tmp_path / "lost.jsonl"
    with log.open("w") as handle:
        answers = AnswerLog(handle)
        answers.write(e="ask", m=1, d=0, s=0)
        answers.write(e="answer", m=1, d=0, s=0, a={"type": "lost in the relay"})
        answers.write(e="ask", m=1, d=3, s=0)
    logged_at = conn.execute("SELECT created_at FROM decisions WHERE match_id = 1").fetchone()
    assert logged_at is not None
    outage = (logged_at[0] - timedelta(seconds=5), logged_at[0] - timedelta(seconds=1))
    strict = Context(answer_logs=[log], redis_outages=[outage])
    assert len(run_on(conn, strict, final=True)["acknowledged-answers"]) == 1
    lenient = Context(
        answer_logs=[log], redis_outages=[outage], excuse_relay_losses=timedelta(seconds=20)
    )
    assert run_on(conn, lenient, final=True)["acknowledged-answers"] == []
    assert len(lenient.excused) == 1
    long_before = (outage[0] - timedelta(hours=1), outage[1] - timedelta(hours=1))
    too_early = Context(
        answer_logs=[log], redis_outages=[long_before], excuse_relay_losses=timedelta(seconds=20)
    )
    assert len(run_on(conn, too_early, final=True)["acknowledged-answers"]) == 1
