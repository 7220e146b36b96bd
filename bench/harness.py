"""What the referee benchmarks share: the instant bots, their child process, a throwaway database.

bench/referee.py (one referee in process) and bench/referees.py (several `arena serve` processes)
both import this module; neither imports the other's internals.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

from arena.ops import services
from arena.sdk import Bot, turn_of
from arena.sdk.bots.base import RandomStrategy
from arena.v1 import bot_pb2
from engines import HashRng

ADMIN = "bench-admin-token"
ADMIN_METADATA = (("authorization", f"Bearer {ADMIN}"),)


# -- the bots (run in a child process) --------------------------------------------------------
class InstantBot(Bot):
    """Answers on receipt, in the stream's own task: random play with `play_local`'s stream."""

    def __init__(self, seed: int, form: int) -> None:
        super().__init__()
        self.form = form  # type: ignore[assignment]
        self.seed = seed
        """The seed of this bot's one match: it picks as `play_local` would on that seed."""
        self.strategy = RandomStrategy()
        self.handling: list[float] = []
        """Seconds from receiving each request to having its answer ready."""

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        began = time.perf_counter()
        start = self.matches.get(request.match_id)
        game, seats = (start.game, start.seats) if start else ("", 0)
        turn = turn_of(request, game, seats)
        rng = HashRng(self.seed, f"bot:{turn.seat}:{turn.decision}")
        action = self.action_for(request, turn, self.strategy.decide(turn, rng))
        self.handling.append(time.perf_counter() - began)
        return action


async def bot_worker(
    make_bot: Callable[[int, int], InstantBot] | None = None,
    measures: Callable[[InstantBot], dict[str, list[Any]]] | None = None,
) -> None:
    """The child process: run the bots named on stdin until stdin closes, then report on stdout
    what `measures` took of each bot (by default the time each spent handling its requests)."""
    plan = json.loads(await asyncio.to_thread(sys.stdin.readline))
    bots = [(make_bot or InstantBot)(seed, plan["form"]) for _, seed in plan["bots"]]
    for bot in bots:
        bot.follow_host = plan.get("follow", True)
    tasks = [
        asyncio.create_task(bot.run_async(plan["address"], token))
        for bot, (token, _) in zip(bots, plan["bots"], strict=True)
    ]
    await asyncio.to_thread(sys.stdin.read)  # the parent closes stdin when the run is over
    for bot in bots:
        bot.stop()
    await asyncio.gather(*tasks, return_exceptions=True)
    report: dict[str, list[Any]] = {"problems": [p.message for b in bots for p in b.problems]}
    for bot in bots:
        for key, values in (measures or _handling)(bot).items():
            report.setdefault(key, []).extend(values)
    sys.stdout.write(json.dumps(report) + "\n")


def _handling(bot: InstantBot) -> dict[str, list[Any]]:
    return {"handling": list(bot.handling)}


# -- measuring ----------------------------------------------------------------------------------
def percentile(samples: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of `samples`."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def ms(seconds: float) -> str:
    """Seconds as milliseconds, for the report."""
    return f"{seconds * 1000:.2f} ms"


# -- the database --------------------------------------------------------------------------------
@contextmanager
def throwaway_database() -> Iterator[tuple[str, str]]:
    """(URL, where it lives) of a new, empty database, dropped afterwards."""
    server = os.environ.get(services.ENV_DATABASE_URL)
    where = f"ARENA_DATABASE_URL ({urlsplit(server).netloc})" if server else ""
    if not server:
        server = services.database_url()
        where = f"embedded Postgres under {services.data_dir()}"
    name = f"arena_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlsplit(server)._replace(path=f"/{name}").geturl(), where
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )
