"""The second rating system: OpenSkill's Bradley-Terry "full" model, made for tables of many
players: every pair of seats at a table counts as one comparison, like the project's Elo, but
each bot also carries its uncertainty.

Why this model of the package's five: on simulated Swisses of 64 bots at 4-seat tables
(`bench/ratings.py`), it recovers true skill better than Plackett-Luce in every setting tried
(Spearman 0.791 against 0.752 after 6 Swiss rounds, 0.853 against 0.833 after 10) and better
than Elo after Swiss rounds (0.791 against 0.778, 0.853 against 0.848); Plackett-Luce, which
reads a table as one sequence of choices, trailed Elo everywhere.

A bot's skill is a mean `mu` and an uncertainty `sigma`; the leaderboard ranks by the
conservative `mu - 3 sigma`. Like Elo here, a round is rated from the skills before it, so the
order in which its tables finish cannot matter. Writes are batched: one statement per round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import BradleyTerryFull

from arena.storage.sql import query

SYSTEM = "openskill"
_MODEL = BradleyTerryFull()


@dataclass(frozen=True, slots=True)
class Skill:
    """One bot's OpenSkill rating in one game."""

    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative estimate the leaderboard sorts by."""
        return self.mu - 3 * self.sigma


def rate_table(skills: Mapping[int, Skill], table: Sequence[tuple[int, int]]) -> dict[int, Skill]:
    """Bot id -> new skill after one table of (bot id, rank) seats; unknown bots start fresh."""
    bots = [bot for bot, _ in table]
    if len(set(bots)) != len(bots):
        raise ValueError(f"a bot holds two seats at one table: {bots}")
    if len(bots) < 2:
        return {}
    before = [skills.get(bot, Skill()) for bot in bots]
    teams = [[_MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in before]
    rated = _MODEL.rate(teams, ranks=[float(rank) for _, rank in table])
    return {
        bot: Skill(team[0].mu, team[0].sigma, old.games + 1)
        for bot, old, team in zip(bots, before, rated, strict=True)
    }


def rate_round(
    skills: Mapping[int, Skill], tables: Sequence[Sequence[tuple[int, int]]]
) -> dict[int, Skill]:
    """Bot id -> new skill after a round, every table rated from the skills before it."""
    out: dict[int, Skill] = {}
    for table in tables:
        for bot, new in rate_table(skills, table).items():
            if bot in out:
                raise ValueError(f"bot {bot} is seated at two tables in one round")
            out[bot] = new
    return out


async def rate_tables(conn: Any, game: str, tables: Sequence[Sequence[tuple[int, int]]]) -> None:
    """Rate a round's tables in the caller's transaction: one locking read, one batched write."""
    bots = sorted({bot for table in tables for bot, _ in table})
    cursor = await conn.execute(
        query("skill_ratings_for_update"), {"game": game, "system": SYSTEM, "bot_ids": bots}
    )
    skills = {
        int(r[0]): Skill(float(r[1]), float(r[2]), int(r[3])) for r in await cursor.fetchall()
    }
    new = rate_round(skills, tables)
    await write(conn, game, new)


async def write(conn: Any, game: str, skills: Mapping[int, Skill]) -> None:
    """Store many bots' skills in one statement."""
    if not skills:
        return
    ids = sorted(skills)
    await conn.execute(
        query("upsert_skill_ratings"),
        {
            "game": game,
            "system": SYSTEM,
            "bot_ids": ids,
            "mus": [skills[b].mu for b in ids],
            "sigmas": [skills[b].sigma for b in ids],
            "games": [skills[b].games for b in ids],
        },
    )
