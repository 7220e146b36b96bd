"""Matches stored the way the referee stores them, without a referee: for the web and stats tests.

Each match is played in process by reference strategies; its decisions go through the real
storage calls (`record_decision`, `finish_match`) with the timing and strike notes the referee
writes, and finished matches are rated as the referee rates ad-hoc matches.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from datetime import timedelta

import engines
from arena.sdk.bots import strategy, strategy_names
from arena.sdk.local import play_local
from arena.storage import Database, botstats
from arena.storage.rows import DecisionRow, SeatResult
from arena.tournament.rounds import rate_match
from engines.driver import MatchDriver


@dataclass(frozen=True, slots=True)
class Stored:
    """A stored match and what the test needs to check it."""

    match_id: int
    decisions: int
    ranks: tuple[int, ...]
    think: dict[int, list[float]]
    """Seat -> the think times logged for it, in seconds."""


async def register(db: Database, names: list[str]) -> dict[str, int]:
    """Bots by name -> id."""
    out = {}
    for name in names:
        out[name] = await db.create_bot(name, hashlib.sha256(name.encode()).digest())
    return out


def think(number: int, seat: int) -> timedelta:
    """A deterministic think time: 10-109 ms."""
    return timedelta(milliseconds=10 + (number * 7 + seat * 13) % 100)


async def store_match(
    db: Database,
    game: str,
    bots: list[tuple[str, int]],
    seed: int,
    *,
    finish: bool = True,
    keep: int | None = None,
    strikes: dict[tuple[int, int], tuple[str, str]] | None = None,
) -> Stored:
    """Play a match in process and store it; `keep` decisions only (and unfinished) if given.

    `strikes` maps (decision, seat) to (kind, message) written as the referee writes them.
    """
    rules = engines.get(game)
    kind = "heuristic" if "heuristic" in strategy_names(game) else "random"  # OpenSpiel's: random
    played = play_local(game, [strategy(game, kind) for _ in bots], seed)
    record = played.record
    match_id = await db.create_match(
        game, rules.version, dict(record.options), len(bots), seed, {}, [b for _, b in bots]
    )
    await db.start_match(match_id, "web-test")
    moves = record.moves if keep is None else record.moves[:keep]
    driver = MatchDriver(rules, len(bots), record.options, seed)
    state = driver.state
    thought: dict[int, list[float]] = {seat: [] for seat in range(len(bots))}
    rows: list[DecisionRow] = []
    for number, joint in enumerate(moves):
        decision = rules.decision(state)
        assert decision is not None
        parsed = {s: rules.parse_action(s, a) for s, a in joint.items()}
        state = driver.play(parsed).after
        notes = {
            seat: botstats.strike_note(kind, message)
            for (n, seat), (kind, message) in (strikes or {}).items()
            if n == number
        }
        for seat in joint:
            thought[seat].append(think(number, seat).total_seconds())
        rows.append(
            DecisionRow(
                match_id,
                number,
                decision.label,
                dict(joint),
                {s: think(number, s) for s in joint},
                notes,
            )
        )
    # All at once: the group-commit writer batches them, as it does several referee matches.
    await asyncio.gather(*(db.record_decision(row) for row in rows))
    if finish and keep is None:
        outcome = played.outcome
        struck = [sum(1 for (_, s) in (strikes or {}) if s == seat) for seat in range(len(bots))]
        await db.finish_match(
            match_id,
            outcome.termination,
            [SeatResult(outcome.ranks[i], outcome.scores[i], struck[i]) for i in range(len(bots))],
        )
        await rate_match(db, match_id)
    return Stored(match_id, len(moves), tuple(played.outcome.ranks), thought)
