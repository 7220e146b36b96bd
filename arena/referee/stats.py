"""The wire form of a bot's statistics (`arena.storage.botstats`), for the GetBotStats RPC."""

from __future__ import annotations

from arena.storage import botstats
from arena.v1 import arena_pb2


def bot_stats_message(stats: botstats.BotStats, game: str | None = None) -> arena_pb2.BotStats:
    """The wire form of a bot's statistics, optionally of one game only."""
    out = arena_pb2.BotStats(bot=stats.name)
    out.registered_at.FromDatetime(stats.created_at)
    for g in stats.games:
        if game is not None and g.game != game:
            continue
        entry = out.games.add(
            game=g.game,
            matches=g.matches,
            wins=g.wins,
            mean_score=g.mean_score,
            rated_games=g.rated_games,
            timeouts=g.timeouts,
            strikes=g.strikes,
            forfeits=g.forfeits,
        )
        entry.ranks.update(g.ranks)
        entry.strikes_by_kind.update(g.strikes_by_kind)
        if g.rating is not None:
            entry.rating = g.rating
        for point in g.history:
            added = entry.history.add(
                match_id=point.match_id, before=point.before, after=point.after
            )
            added.at.FromDatetime(point.at)
        if g.think is not None:
            entry.think.decisions = g.think.decisions
            entry.think.p50.FromTimedelta(g.think.p50)
            entry.think.p90.FromTimedelta(g.think.p90)
            entry.think.p99.FromTimedelta(g.think.p99)
            entry.think.max.FromTimedelta(g.think.max)
        for p in g.problems:
            problem = entry.problems.add(
                match_id=p.match_id,
                decision=p.decision,
                seat=p.seat,
                kind=p.kind,
                message=p.message,
            )
            problem.at.FromDatetime(p.at)
    return out
