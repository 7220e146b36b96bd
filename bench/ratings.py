"""Benchmark: how well Swiss standings, Elo and OpenSkill recover true skill; rating speed.

1. Accuracy: 64 bots with known skills play Swisses at 4-seat tables (6 and 10 rounds, `REPS`
   repetitions, seeded). A table's ranks come from skill plus Gaussian noise. Printed: the mean
   Spearman correlation with true skill of the Swiss standings, of standings after random
   pairing (the baseline), of Elo (K 32, and with the provisional K schedule) and of OpenSkill.
2. A newcomer of true strength 2000 among 1700s: tables until its Elo reaches 1950, K 32 against
   the provisional schedule.
3. Speed, pure: rating updates per second of 4-seat tables, Elo and OpenSkill.
4. Speed through Postgres (needs ARENA_DATABASE_URL; a throwaway database is made and dropped):
   table updates per second when a round of 250 tables is written one statement per seat (the
   old `close_round`) and batched (the two write statements `close_round` uses).
5. `close_round`'s whole rating path through Postgres (`rating_store.rate_closed_round`), 250
   4-seat tables per round (lock the ratings, mark the matches rated, write changes and ratings,
   commit), before and after in the same run, alternating: "before" is the schema of migration
   0007, whose `rating_changes` checked its bot and match keys row by row (re-created for those
   rounds); "after" is the migrated schema (0009: no per-row keys). Medians over the rounds.
6. Ad-hoc matches rated per second through `rating_store.rate_match` (one transaction each, as
   the referee rates a match as it finishes), 4 seats, through a `Database` pool.

Usage: python bench/ratings.py [REPS] [--db-only]
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg
from psycopg import sql

from arena.storage import Database, MatchStatus
from arena.storage.migrate import migrate
from arena.storage.sql import query
from arena.tournament import skill
from arena.tournament.formats import RatingSystem
from arena.tournament.pairing import History, RoundResult, TableResult, pair_round, standings
from arena.tournament.rating_store import rate_closed_round, rate_match
from arena.tournament.ratings import (
    DEFAULT_K,
    DEFAULT_RATING,
    elo_deltas,
    provisional_k,
    rate_round,
)
from arena.tournament.tables import Table

BOTS = 64
TABLE_SIZE = 4
NOISE = 250.0
SEED = 17


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""

    def ranks(values: Sequence[float]) -> list[float]:
        order = sorted(range(len(values)), key=lambda i: values[i])
        out = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return float(cov / (vx * vy) ** 0.5)


def play(table: Sequence[int], skills: Sequence[float], rnd: random.Random) -> tuple[int, ...]:
    """Ranks of one table: skill plus noise, higher performance ranks first."""
    perf = [skills[b] + rnd.gauss(0, NOISE) for b in table]
    order = sorted(range(len(table)), key=lambda i: -perf[i])
    ranks = [0] * len(table)
    for place, seat in enumerate(order):
        ranks[seat] = place
    return tuple(ranks)


def simulate(rounds: int, rep: int, swiss: bool) -> dict[str, float]:
    """One tournament; Spearman of each ranking with true skill."""
    rnd = random.Random(SEED * 1000 + rep)
    skills = [rnd.gauss(1500, 200) for _ in range(BOTS)]
    bots = list(range(BOTS))
    history = History()
    results: list[RoundResult] = []
    elo = {b: DEFAULT_RATING for b in bots}
    elo_p = dict(elo)
    games = dict.fromkeys(bots, 0)
    open_skill: dict[int, skill.Skill] = {}
    for round_no in range(1, rounds + 1):
        if swiss:
            field = standings(bots, results, {})
            tables = pair_round(field, history, TABLE_SIZE, (3, 4), rep, round_no).tables
        else:
            shuffled = rnd.sample(bots, len(bots))
            tables = tuple(tuple(shuffled[i : i + TABLE_SIZE]) for i in range(0, BOTS, TABLE_SIZE))
        history = history.after(tables)
        played = [TableResult(t, play(t, skills, rnd)) for t in tables]
        results.append(RoundResult(TABLE_SIZE, tuple(played)))
        seats = [list(zip(t.bots, t.ranks, strict=True)) for t in played]
        for bot, delta in rate_round(elo, seats).items():
            elo[bot] += delta
        for bot, delta in rate_round(elo_p, seats, DEFAULT_K, games).items():
            elo_p[bot] += delta
        for b in bots:
            games[b] += 1
        open_skill.update(skill.rate_round(open_skill, seats))
    order = standings(bots, results, {})
    place = {e.bot: -i for i, e in enumerate(order)}
    return {
        "standings": spearman(skills, [place[b] for b in bots]),
        "elo": spearman(skills, [elo[b] for b in bots]),
        "elo provisional": spearman(skills, [elo_p[b] for b in bots]),
        "openskill": spearman(skills, [open_skill[b].ordinal for b in bots]),
    }


def accuracy(reps: int) -> None:
    """Part 1."""
    print(f"1. Spearman with true skill: {BOTS} bots, {TABLE_SIZE}-seat tables, {reps} reps")
    head = ("rounds", "pairing", "standings", "elo", "elo prov", "openskill")
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, (7, 8, 10, 7, 9, 10), strict=True)))
    for rounds in (6, 10):
        for swiss in (False, True):
            runs = [simulate(rounds, rep, swiss) for rep in range(reps)]
            mean = {k: sum(r[k] for r in runs) / len(runs) for k in runs[0]}
            print(
                f"{rounds:>7} {'swiss' if swiss else 'random':>8} {mean['standings']:>10.3f}"
                f" {mean['elo']:>7.3f} {mean['elo provisional']:>9.3f} {mean['openskill']:>10.3f}"
            )


def newcomer() -> None:
    """Part 2."""

    def tables_to_reach(provisional: bool, seed: int) -> int:
        rnd = random.Random(seed)
        rating = DEFAULT_RATING
        for games in range(1000):
            field = [rnd.gauss(1700, 100) for _ in range(3)]
            ranks = play([0, 1, 2, 3], [2000.0, *field], rnd)
            k = provisional_k(games) if provisional else DEFAULT_K
            rating += elo_deltas([rating, *field], ranks, [k, DEFAULT_K, DEFAULT_K, DEFAULT_K])[0]
            if rating >= 1950:
                return games + 1
        return 1000

    fixed = [tables_to_reach(False, s) for s in range(50)]
    prov = [tables_to_reach(True, s) for s in range(50)]
    print(
        f"2. newcomer of strength 2000 to Elo 1950 (mean of 50): K 32 {sum(fixed) / 50:.1f} tables,"
        f" provisional {sum(prov) / 50:.1f} tables, ratio {sum(fixed) / sum(prov):.2f}x"
    )


def tables_of_a_round(rnd: random.Random, count: int = 250) -> list[list[tuple[int, int]]]:
    """`count` 4-seat tables over distinct bots with random ranks."""
    bots = rnd.sample(range(1, 4 * count + 1), 4 * count)
    return [
        list(zip(bots[i : i + 4], rnd.sample(range(4), 4), strict=True))
        for i in range(0, len(bots), 4)
    ]


def pure_speed() -> None:
    """Part 3."""
    rnd = random.Random(SEED)
    tables = tables_of_a_round(rnd)
    ratings = {b: rnd.gauss(1500, 200) for t in tables for b, _ in t}
    start = time.perf_counter()
    for _ in range(20):
        rate_round(ratings, tables)
    elo_rate = 20 * len(tables) / (time.perf_counter() - start)
    start = time.perf_counter()
    for _ in range(4):
        skill.rate_round({}, tables)
    os_rate = 4 * len(tables) / (time.perf_counter() - start)
    print(f"3. pure updates: Elo {elo_rate:,.0f} tables/s, OpenSkill {os_rate:,.0f} tables/s")


async def db_speed(server_url: str) -> None:
    """Part 4."""
    name = f"bench_ratings_{uuid.uuid4().hex[:8]}"
    async with await psycopg.AsyncConnection.connect(server_url, autocommit=True) as admin:
        await admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = psycopg.conninfo.make_conninfo(server_url, dbname=name)
    try:
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await migrate(conn)
            await _db_rounds(conn)
            await _close_round_path(conn)
        await _ad_hoc_matches(url)
    finally:
        async with await psycopg.AsyncConnection.connect(server_url, autocommit=True) as admin:
            await admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


# The per-seat statements `close_round` and `rate_match` used before they were batched.
PER_SEAT_CHANGE = """
INSERT INTO rating_changes (bot_id, game, match_id, tournament_id, round_no, before, after, delta)
VALUES (%(bot_id)s, %(game)s, %(match_id)s, %(tournament_id)s, %(round_no)s, %(before)s,
        %(after)s, %(delta)s)
ON CONFLICT (bot_id, match_id) DO NOTHING"""
PER_SEAT_RATING = """
INSERT INTO ratings (bot_id, game, rating, games, updated_at)
VALUES (%(bot_id)s, %(game)s, %(rating)s, %(games)s, now())
ON CONFLICT (bot_id, game)
DO UPDATE SET rating = excluded.rating, games = excluded.games, updated_at = now()"""


async def _db_rounds(conn: psycopg.AsyncConnection[Any]) -> None:
    rnd = random.Random(SEED)
    rounds = 4
    await conn.execute(
        "INSERT INTO bots (id, name, token_hash) SELECT i, 'b' || i, sha256(int4send(i))"
        " FROM generate_series(1, 1000) AS i"
    )
    cursor = await conn.execute(
        "INSERT INTO matches (game, rules_version, seats, seed, status)"
        " SELECT 'hart', 1, 4, 1, 'finished' FROM generate_series(1, %s) RETURNING id",
        (2 * rounds * 250,),
    )
    match_ids = [int(r[0]) for r in await cursor.fetchall()]
    timings = {}
    for mode in ("per seat", "batched"):
        took = 0.0
        for r in range(rounds):
            tables = tables_of_a_round(rnd)
            ids = match_ids[:250]
            match_ids = match_ids[250:]
            ratings = {b: DEFAULT_RATING for t in tables for b, _ in t}
            deltas = [rate_round(ratings, [t]) for t in tables]
            start = time.perf_counter()
            async with conn.transaction():
                if mode == "per seat":
                    for match_id, per in zip(ids, deltas, strict=True):
                        for bot, delta in per.items():
                            await conn.execute(
                                PER_SEAT_CHANGE,
                                {
                                    "bot_id": bot,
                                    "game": "hart",
                                    "match_id": match_id,
                                    "tournament_id": None,
                                    "round_no": None,
                                    "before": 1500.0,
                                    "after": 1500.0 + delta,
                                    "delta": delta,
                                },
                            )
                            await conn.execute(
                                PER_SEAT_RATING,
                                {"bot_id": bot, "game": "hart", "rating": 1500 + delta, "games": r},
                            )
                else:
                    flat = [
                        (bot, m, delta)
                        for m, per in zip(ids, deltas, strict=True)
                        for bot, delta in per.items()
                    ]
                    await conn.execute(
                        query("insert_rating_changes"),
                        {
                            "game": "hart",
                            "tournament_id": None,
                            "round_no": None,
                            "bot_ids": [b for b, _, _ in flat],
                            "match_ids": [m for _, m, _ in flat],
                            "befores": [1500.0] * len(flat),
                            "afters": [1500.0 + d for _, _, d in flat],
                            "deltas": [d for _, _, d in flat],
                        },
                    )
                    await conn.execute(
                        query("upsert_ratings"),
                        {
                            "game": "hart",
                            "bot_ids": [b for b, _, _ in flat],
                            "ratings": [1500.0 + d for _, _, d in flat],
                            "games": [r] * len(flat),
                        },
                    )
            took += time.perf_counter() - start
        timings[mode] = rounds * 250 / took
    ratio = timings["batched"] / timings["per seat"]
    print(
        f"4. through Postgres: per seat {timings['per seat']:,.0f} tables/s, batched"
        f" {timings['batched']:,.0f} tables/s, ratio {ratio:.1f}x (target 10,000)"
    )


KEYS_OF_0007 = (
    "ALTER TABLE rating_changes ADD CONSTRAINT rating_changes_bot_id_fkey"
    " FOREIGN KEY (bot_id) REFERENCES bots (id)",
    "ALTER TABLE rating_changes ADD CONSTRAINT rating_changes_match_id_fkey"
    " FOREIGN KEY (match_id) REFERENCES matches (id)",
)


async def _close_round_path(conn: psycopg.AsyncConnection[Any]) -> None:
    """Part 5."""
    rnd = random.Random(SEED + 5)
    per_round = 250
    pairs = 8  # before and after alternate: the shared machine's load hits both alike
    cursor = await conn.execute(
        "INSERT INTO matches (game, rules_version, seats, seed, status)"
        " SELECT 'hart', 1, 4, 1, 'finished' FROM generate_series(1, %s) RETURNING id",
        (2 * pairs * per_round,),
    )
    match_ids = [int(r[0]) for r in await cursor.fetchall()]
    took: dict[str, list[float]] = {"before": [], "after": []}
    for round_no in range(1, 2 * pairs + 1):
        mode = "before" if round_no % 2 else "after"
        ids, match_ids = match_ids[:per_round], match_ids[per_round:]
        tables = [
            Table(
                round_no, n, tuple(b for b, _ in t), m, MatchStatus.FINISHED, tuple(r for _, r in t)
            )
            for n, (m, t) in enumerate(zip(ids, tables_of_a_round(rnd, per_round), strict=True))
        ]
        if mode == "before":
            for key in KEYS_OF_0007:
                await conn.execute(key)
        start = time.perf_counter()
        async with conn.transaction():
            await rate_closed_round(conn, "hart", RatingSystem.ELO, (1, round_no), tables, 32)
        took[mode].append(time.perf_counter() - start)
        if mode == "before":
            for key in ("rating_changes_bot_id_fkey", "rating_changes_match_id_fkey"):
                await conn.execute(
                    sql.SQL("ALTER TABLE rating_changes DROP CONSTRAINT {}").format(
                        sql.Identifier(key)
                    )
                )
    rates = {m: per_round / sorted(t)[len(t) // 2] for m, t in took.items()}
    print(
        f"5. close_round rating path, {per_round} tables/round: before {rates['before']:,.0f}"
        f" tables/s, after {rates['after']:,.0f} tables/s (medians of {pairs} rounds each,"
        f" alternating; target 10,000)"
    )


async def _ad_hoc_matches(url: str, count: int = 300) -> None:
    """Part 6."""
    rnd = random.Random(SEED + 6)
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        cursor = await conn.execute(
            "INSERT INTO matches (game, rules_version, seats, seed, status)"
            " SELECT 'hart', 1, 4, 1, 'finished' FROM generate_series(1, %s) RETURNING id",
            (count,),
        )
        ids = [int(r[0]) for r in await cursor.fetchall()]
        seats = [
            (m, seat, bot, rank)
            for m in ids
            for seat, (bot, rank) in enumerate(tables_of_a_round(rnd, 1)[0])
        ]
        async with conn.cursor() as cur:
            await cur.executemany(
                "INSERT INTO seats (match_id, seat, bot_id, rank) VALUES (%s, %s, %s, %s)", seats
            )
    db = await Database.open(url)
    try:
        start = time.perf_counter()
        for match_id in ids:
            await rate_match(db, match_id)
        rate = count / (time.perf_counter() - start)
    finally:
        await db.close()
    print(f"6. ad-hoc matches rated one by one: {rate:,.0f} matches/s ({count} matches, 4 seats)")


def main() -> None:
    """Run the six parts (only 4 to 6 with --db-only)."""
    args = [a for a in sys.argv[1:] if a != "--db-only"]
    reps = int(args[0]) if args else 20
    if "--db-only" not in sys.argv:
        accuracy(reps)
        newcomer()
        pure_speed()
    url = os.environ.get("ARENA_DATABASE_URL")
    if url:
        asyncio.run(db_speed(url))
    else:
        print("4. through Postgres: skipped (set ARENA_DATABASE_URL to a server)")


if __name__ == "__main__":
    main()
