"""Invariant checks of ratings and tournaments: rated once, zero-sum, continuous chains,
standings equal to a recomputation, rounds closable, one seat per bot per round."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from fractions import Fraction
from typing import Any

from arena.chaos.checks import Conn, Context, invariant
from arena.tournament.ratings import DEFAULT_K, DEFAULT_RATING, provisional_k
from arena.tournament.standings import bye_points, match_points, to_units

TOLERANCE = 1e-6
"""Rating arithmetic is in floats: sums compare within this."""
MAX_ATTEMPTS = 2


# -- ratings ---------------------------------------------------------------------------------------
@invariant("rated-once", always=True)
def rated_once(conn: Conn, context: Context) -> list[str]:
    """A match is marked rated exactly when it has one rating change per bot; only finished
    matches are rated."""
    out = []
    for match_id, status, rated, bots, changes in conn.execute(
        "SELECT m.id, m.status, m.rated, (SELECT count(DISTINCT bot_id) FROM seats s "
        "WHERE s.match_id = m.id), (SELECT count(*) FROM rating_changes rc "
        "WHERE rc.match_id = m.id) FROM matches m "
        "WHERE m.rated OR EXISTS (SELECT 1 FROM rating_changes rc WHERE rc.match_id = m.id)"
    ):
        if status != "finished":
            out.append(f"match {match_id} is {status} but rated ({changes} rating changes)")
        elif not rated:
            out.append(f"match {match_id} has {changes} rating changes but is not marked rated")
        elif changes != bots:
            out.append(f"match {match_id} has {changes} rating changes for {bots} bots")
    for (match_id,) in conn.execute(
        "SELECT rc.match_id FROM rating_changes rc LEFT JOIN matches m ON m.id = rc.match_id "
        "WHERE m.id IS NULL GROUP BY rc.match_id"
    ):
        out.append(f"rating changes name match {match_id}, which does not exist")
    return out


def _chains(conn: Conn) -> tuple[list[str], dict[tuple[int, int], int]]:
    """Walk each (bot, game)'s rating changes from the default rating, each one's `before`
    equal to the last `after`, to the stored rating and game count. Returns the breaks, and
    (bot, match) -> how many rated games the bot had before that match."""
    changes: defaultdict[tuple[int, str], list[tuple[Any, ...]]] = defaultdict(list)
    for bot, game, match_id, before, after in conn.execute(
        "SELECT bot_id, game, match_id, before, after FROM rating_changes "
        "ORDER BY created_at, match_id"
    ):
        changes[bot, game].append((match_id, before, after))
    stored = {
        (bot, game): (rating, games)
        for bot, game, rating, games in conn.execute(
            "SELECT bot_id, game, rating, games FROM ratings"
        )
    }
    out: list[str] = []
    position: dict[tuple[int, int], int] = {}
    for key in sorted(set(changes) | set(stored)):
        left = list(changes.get(key, []))
        current, walked = DEFAULT_RATING, 0
        while left:
            step = next((c for c in left if c[1] == current), None)
            if step is None:
                out.append(
                    f"bot {key[0]} in {key[1]}: no rating change starts from {current} after "
                    f"{walked} (left: {[(m, b) for m, b, _ in left][:3]})"
                )
                break
            left.remove(step)
            position[key[0], step[0]] = walked
            current, walked = step[2], walked + 1
        rating, games = stored.get(key, (DEFAULT_RATING, 0))
        if not left and (not math.isclose(rating, current, abs_tol=TOLERANCE) or games != walked):
            out.append(
                f"bot {key[0]} in {key[1]}: rating {rating} after {games} games stored, "
                f"its changes lead to {current} after {walked}"
            )
    return out, position


@invariant("rating-chains", always=True)
def rating_chains(conn: Conn, context: Context) -> list[str]:
    """Each bot's rating changes follow on from one another to its stored rating."""
    return _chains(conn)[0]


@invariant("zero-sum", always=True)
def zero_sum(conn: Conn, context: Context) -> list[str]:
    """Per match, the deltas divided by each bot's K sum to zero (a table of established bots
    is zero-sum; a newcomer's provisional K only scales its own change)."""
    _, position = _chains(conn)
    sums: defaultdict[int, float] = defaultdict(float)
    for bot, match_id, delta in conn.execute("SELECT bot_id, match_id, delta FROM rating_changes"):
        k = provisional_k(position.get((bot, match_id), 0), DEFAULT_K)
        sums[match_id] += delta / k
    return [
        f"match {match_id}: deltas over K sum to {total:.9f}, not 0"
        for match_id, total in sorted(sums.items())
        if abs(total) > TOLERANCE
    ]


# -- tournaments -----------------------------------------------------------------------------------
def _tables(conn: Conn) -> list[tuple[Any, ...]]:
    """(tournament, round, table, bot ids, latest match, its status, attempt, ranks)."""
    return conn.execute(
        "SELECT t.tournament_id, t.round_no, t.table_no, t.bot_ids, m.id, m.status::text, "
        "       m.attempt, (SELECT array_agg(s.rank ORDER BY s.seat) FROM seats s "
        "                   WHERE s.match_id = m.id) "
        "FROM tournament_tables t LEFT JOIN LATERAL (SELECT id, status, attempt FROM matches "
        "  WHERE tournament_id = t.tournament_id AND round_no = t.round_no "
        "  AND table_no = t.table_no ORDER BY attempt DESC LIMIT 1) m ON true "
        "ORDER BY 1, 2, 3"
    ).fetchall()


def _decided(status: str | None, attempt: int | None) -> bool:
    return status == "finished" or (status == "aborted" and (attempt or 0) >= MAX_ATTEMPTS)


@invariant("one-seat-per-round", always=True)
def one_seat_per_round(conn: Conn, context: Context) -> list[str]:
    """No bot sits at two tables of a round, or at a table and on a bye."""
    seen: Counter[tuple[int, int, int]] = Counter()
    for tournament, round_no, _table, bots, *_ in _tables(conn):
        seen.update((tournament, round_no, b) for b in bots)
    for tournament, round_no, bot in conn.execute(
        "SELECT tournament_id, round_no, bot_id FROM byes"
    ):
        seen[tournament, round_no, bot] += 1
    return [
        f"tournament {t} round {r}: bot {b} sits {n} times"
        for (t, r, b), n in sorted(seen.items())
        if n > 1
    ]


@invariant("rounds-closable", always=False)
def rounds_closable(conn: Conn, context: Context) -> list[str]:
    """A round that is not finished still waits for a table: one whose match has not been
    decided, or whose first attempt aborted and may be replayed. A round whose tables are all
    decided for longer than `pending_limit` is stuck."""
    open_rounds = {
        (t, r): (old, status)
        for t, r, status, old in conn.execute(
            "SELECT tournament_id, round_no, status::text, started_at < now() - %s FROM rounds "
            "WHERE status <> 'finished'",
            (context.pending_limit,),
        )
    }
    waiting: defaultdict[tuple[int, int], int] = defaultdict(int)
    last_end: dict[tuple[int, int], bool] = {}
    for t, r, _table, _bots, _match, status, attempt, _ranks in _tables(conn):
        if (t, r) in open_rounds and not _decided(status, attempt):
            waiting[t, r] += 1
    for t, r, recent in conn.execute(
        "SELECT tournament_id, round_no, max(finished_at) > now() - %s FROM matches "
        "WHERE tournament_id IS NOT NULL GROUP BY 1, 2",
        (context.pending_limit,),
    ):
        last_end[t, r] = bool(recent)
    return [
        f"tournament {t} round {r} ({status}) has every table decided but is not closed"
        for (t, r), (old, status) in sorted(open_rounds.items())
        if old and not waiting[t, r] and not last_end.get((t, r), False)
    ]


@invariant("standings", always=False)
def standings(conn: Conn, context: Context) -> list[str]:
    """The stored standings equal the points, byes and rounds recomputed from finished rounds."""
    finished = {
        (t, r)
        for t, r in conn.execute(
            "SELECT tournament_id, round_no FROM rounds WHERE status = 'finished'"
        )
    }
    sizes = dict(conn.execute("SELECT id, table_size FROM tournaments").fetchall())
    points: defaultdict[tuple[int, int], Fraction] = defaultdict(Fraction)
    rounds: Counter[tuple[int, int]] = Counter()
    byes: Counter[tuple[int, int]] = Counter()
    for t, r, _table, bots, _match, status, attempt, ranks in _tables(conn):
        if (t, r) not in finished or not _decided(status, attempt):
            continue
        table_ranks = [1] * len(bots) if status == "aborted" else list(ranks)
        for bot, won in zip(bots, match_points(table_ranks), strict=True):
            points[t, bot] += won
            rounds[t, bot] += 1
    for t, r, bot in conn.execute("SELECT tournament_id, round_no, bot_id FROM byes"):
        if (t, r) in finished:
            points[t, bot] += bye_points(sizes[t])
            byes[t, bot] += 1
    out = []
    for t, bot, stored_points, stored_byes, played in conn.execute(
        "SELECT tournament_id, bot_id, points, byes, rounds_played FROM standings"
    ):
        expected = (to_units(points[t, bot]), byes[t, bot], rounds[t, bot])
        if (stored_points, stored_byes, played) != expected:
            out.append(
                f"tournament {t} bot {bot}: standings say (points, byes, rounds) "
                f"{(stored_points, stored_byes, played)}, the tables give {expected}"
            )
    return out
