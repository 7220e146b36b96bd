"""Beat's version-test tick: count the sets that finished, then dispatch the next ones.

A tick holds each running test's row lock (racing ticks skip it), so a set is counted once. A set
counts only when every match of its current attempt has finished; an aborted match sends the set
to a second attempt with its own seed, and a second abort voids it. Sets are ordinary ad-hoc
matches made through the referee like the ladder's, so they survive a referee restart the way
any match does (its lease moves, or it aborts and the set is replayed); everything else lives in
Postgres, so a worker lost mid-tick loses nothing: the next tick carries on. Each test gets at
most one new set per tick while fewer than its `in_flight` sets play, and only while all its bots
are connected, so tests and the ladder share the bots in turn.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from psycopg.rows import dict_row

from arena.referee.clock import Clock
from arena.storage import Database
from arena.storage.sql import query
from arena.versiontest.gsprt import Hypotheses, Verdict, match_score, set_score
from arena.versiontest.sets import BASELINE, CANDIDATE, MATCHES_PER_SET, plan_set, set_seed
from arena.versiontest.store import TestStatus, current_llr

Connected = Callable[[], Awaitable[Sequence[str]]]
# (game, bot names in seat order, clock, seed, options) -> the new match's id
CreateMatch = Callable[[str, Sequence[str], Clock, int, dict[str, Any]], Awaitable[int]]
ENDED = ("finished", "aborted")


async def tick(db: Database, connected: Connected, create_match: CreateMatch) -> list[int]:
    """Count finished sets and start new ones for every running test; the new matches' ids."""
    made: list[int] = []
    async with db.transaction("version test tick") as conn:
        cursor = await conn.execute(query("running_version_tests_for_update"))
        test_ids = [int(r[0]) for r in await cursor.fetchall()]
        if not test_ids:
            return made
        online = set(await connected())
        for test_id in test_ids:
            async with conn.cursor(row_factory=dict_row) as cur:
                await cur.execute(query("version_test"), {"test_id": test_id})
                test = await cur.fetchone()
            assert test is not None
            if await settle(conn, test):
                made += await _dispatch(conn, test, online, create_match)
    return made


async def settle(conn: Any, test: dict[str, Any]) -> bool:
    """Count the test's finished sets and update its LLR and status; whether it still runs."""
    test_id = test["id"]
    hyp = Hypotheses(test["elo0"], test["elo1"], test["alpha"], test["beta"])
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query("version_test_playing"), {"test_id": test_id})
        playing: dict[int, list[dict[str, Any]]] = {}
        for row in await cur.fetchall():
            playing.setdefault(row["set_no"], []).append(row)
    cursor = await conn.execute(query("version_test_scores"), {"test_id": test_id})
    scores = {float(s): int(n) for s, n in await cursor.fetchall()}
    status, llr = TestStatus.RUNNING, current_llr(list(scores.items()), hyp)
    for set_no, rows in sorted(playing.items()):
        if len(rows) < MATCHES_PER_SET or any(r["status"] not in ENDED for r in rows):
            continue
        params = {"test_id": test_id, "set_no": set_no}
        # A match that was aborted, or that started without one of its bots (a referee lost
        # mid-test, a bot that dropped just then), says nothing of the versions: play the set
        # again once, then void it.
        if any(r["status"] == "aborted" or r["absent"] for r in rows):
            if rows[0]["attempt"] == 1:
                await conn.execute(query("replay_version_test_set"), params)
            else:
                await conn.execute(query("void_version_test_set"), params)
            continue
        score = set_score([match_score(r["candidate_rank"], r["baseline_rank"]) for r in rows])
        scores[score] = scores.get(score, 0) + 1
        llr = current_llr(list(scores.items()), hyp)
        await conn.execute(query("count_version_test_set"), {**params, "score": score, "llr": llr})
        verdict = hyp.verdict(llr)
        counted = MATCHES_PER_SET * sum(scores.values())
        if verdict is not Verdict.CONTINUE:
            status = TestStatus(verdict.value)
        elif test["max_matches"] is not None and counted >= test["max_matches"]:
            status = TestStatus.CAPPED
        if status is not TestStatus.RUNNING:
            break
    await conn.execute(
        query("settle_version_test"), {"test_id": test_id, "llr": llr, "status": status.value}
    )
    return status is TestStatus.RUNNING


async def _dispatch(
    conn: Any, test: dict[str, Any], online: set[str], create_match: CreateMatch
) -> list[int]:
    """Give the test's replays their matches, then start one new set if it may."""
    names = [test["candidate"], test["baseline"], *test["fillers"]]
    if not set(names) <= online:
        return []
    test_id = test["id"]
    cursor = await conn.execute(query("version_test_progress"), {"test_id": test_id})
    row = await cursor.fetchone()
    playing, next_set = int(row[0]), int(row[1])
    counted_or_playing = next_set  # every set so far is counted, void or playing
    cap = test["max_matches"]
    if playing < test["in_flight"] and (cap is None or MATCHES_PER_SET * counted_or_playing < cap):
        await conn.execute(
            query("insert_version_test_set"), {"test_id": test_id, "set_no": next_set}
        )
    cursor = await conn.execute(query("version_test_unplayed"), {"test_id": test_id})
    made = []
    for set_no, attempt in await cursor.fetchall():
        made += await _play_set(conn, test, int(set_no), int(attempt), create_match)
    return made


async def _play_set(
    conn: Any, test: dict[str, Any], set_no: int, attempt: int, create_match: CreateMatch
) -> list[int]:
    plan = plan_set(set_no, test["seats"], list(test["fillers"]))
    seed = set_seed(int(test["seed"]), str(test["seed_salt"]), set_no, attempt)
    sides = {CANDIDATE: test["candidate"], BASELINE: test["baseline"]}
    clock = Clock.from_json(dict(test["clock"]))
    made = []
    for game_no, lineup in enumerate(plan.lineups):
        bots = [sides.get(who, who) for who in lineup]
        match_id = await create_match(test["game"], bots, clock, seed, dict(test["options"]))
        await conn.execute(
            query("record_version_test_match"),
            {
                "match_id": match_id,
                "test_id": test["id"],
                "set_no": set_no,
                "attempt": attempt,
                "game_no": game_no,
            },
        )
        made.append(match_id)
    return made
