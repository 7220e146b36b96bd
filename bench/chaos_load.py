"""The chaos soak's work: register bots and start their processes, keep a ladder and a Swiss
tournament per game going, and a stream of ad-hoc matches; every call goes to some live referee.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
from chaos_arena import CLOSED, ROOT, Arena

from arena.v1 import arena_pb2, arena_pb2_grpc, common_pb2

GAMES = {"hart": 3, "crossing": 2, "loyang": 2}
"""Each game and the seats of its tables in the soak."""
MODES = ["slow", "junk", "flappy", "crash"]
"""The misbehaving bots' modes, one bot each (the others are `good`)."""


@dataclass
class BotProcess:
    """One bot of the soak and its process."""

    name: str
    token: str
    mode: str
    seed: int
    log: Path
    process: subprocess.Popen[bytes] | None = None
    held: bool = False
    """Killed by the fault injector, which starts it again itself."""

    def start(self, arena: Arena) -> None:
        """Start (or restart) its process."""
        if CLOSED.is_set():
            return
        with (arena.folder / "logs" / f"{self.name}.log").open("ab") as output:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    str(ROOT / "bench" / "chaos_bot.py"),
                    ",".join(arena.addresses),
                    str(self.log),
                    *("--mode", self.mode, "--seed", str(self.seed)),
                    *("--per-decision", str(arena.per_decision)),
                ],
                env={**arena.environ(), "ARENA_BOT_TOKEN": self.token},
                stdout=output,
                stderr=output,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    @property
    def alive(self) -> bool:
        """Whether its process runs."""
        return self.process is not None and self.process.poll() is None


@dataclass
class Load:
    """Bots, ladders, tournaments and ad-hoc matches, kept going until `stop`."""

    arena: Arena
    rng: random.Random
    bots: list[BotProcess] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    """RPC outcomes by "rpc:status"."""
    stopping: threading.Event = field(default_factory=threading.Event)
    tournaments: dict[str, int] = field(default_factory=dict)
    """The running tournament of each game."""

    def call(self, rpc: str, request: object, attempts: int = 1) -> object | None:
        """Call `rpc` as admin on a live referee (another on failure); None if none answered."""
        for _ in range(attempts):
            live = [
                a
                for a, r in zip(self.arena.addresses, self.arena.referees, strict=True)
                if r.alive and not r.paused
            ]
            for address in self.rng.sample(live, len(live)):
                with grpc.insecure_channel(address) as channel:
                    method = getattr(arena_pb2_grpc.ArenaServiceStub(channel), rpc)
                    try:
                        reply = method(
                            request,
                            timeout=10,
                            metadata=(("authorization", f"Bearer {self.arena.admin_token}"),),
                        )
                    except grpc.RpcError as exc:
                        self.calls[f"{rpc}:{exc.code().name}"] += 1  # type: ignore[attr-defined]
                        continue
                self.calls[f"{rpc}:OK"] += 1
                return reply
            time.sleep(1)
        return None

    def start_bots(self, count: int, seed: int) -> None:
        """Register `count` bots and start their processes; the first few misbehave."""
        logs = self.arena.folder / "answers"
        logs.mkdir(exist_ok=True)
        for i in range(count):
            mode = MODES[i] if i < len(MODES) else "good"
            name = f"{mode}-{i:02d}"
            reply = self.call("RegisterBot", arena_pb2.RegisterBotRequest(name=name), attempts=5)
            assert isinstance(reply, arena_pb2.RegisterBotResponse), f"cannot register {name}"
            bot = BotProcess(name, reply.token, mode, seed * 100 + i, logs / f"{name}.jsonl")
            bot.start(self.arena)
            self.bots.append(bot)

    def clock(self) -> common_pb2.Clock:
        """The soak's time control: the referees' per-decision limit, a small bank."""
        clock = common_pb2.Clock(max_strikes=0)
        clock.per_decision.FromTimedelta(timedelta(seconds=self.arena.per_decision))
        clock.bank.FromTimedelta(timedelta(seconds=5))
        return clock

    def start_ladders(self) -> None:
        """A ladder per game."""
        for game, seats in GAMES.items():
            request = arena_pb2.StartLadderRequest(
                game=game, table_size=seats, concurrency=1, clock=self.clock()
            )
            self.call("StartLadder", request, attempts=5)

    def stop_ladders(self) -> None:
        """Stop every ladder (the end of a soak)."""
        for game in GAMES:
            self.call("StopLadder", arena_pb2.StopLadderRequest(game=game), attempts=5)

    def keep_tournaments(self) -> None:
        """Start a Swiss per game, and another when one finishes."""
        for game, seats in GAMES.items():
            current = self.tournaments.get(game)
            if current is not None:
                reply = self.call(
                    "GetTournament", arena_pb2.GetTournamentRequest(tournament_id=current)
                )
                if not isinstance(reply, arena_pb2.Tournament) or reply.status not in (
                    arena_pb2.TOURNAMENT_STATUS_FINISHED,
                    arena_pb2.TOURNAMENT_STATUS_CANCELLED,
                ):
                    continue
            entrants = self.rng.sample([b.name for b in self.bots], min(12, len(self.bots)))
            request = arena_pb2.CreateTournamentRequest(
                name=f"chaos {game} {len(self.calls)}",
                game=game,
                bots=entrants,
                table_size=seats,
                rounds=3,
                clock=self.clock(),
                seed=self.rng.randrange(1, 2**31),
            )
            request.starts_at.FromDatetime(datetime.now(UTC) + timedelta(seconds=1))
            reply = self.call("CreateTournament", request)
            if isinstance(reply, arena_pb2.Tournament):
                self.tournaments[game] = reply.tournament_id

    def adhoc_match(self) -> None:
        """One ad-hoc match of a random game among random bots."""
        game = self.rng.choice(sorted(GAMES))
        seats = self.rng.sample([b.name for b in self.bots], GAMES[game])
        request = arena_pb2.CreateMatchRequest(
            game=game, bots=seats, clock=self.clock(), seed=self.rng.randrange(1, 2**31)
        )
        request.connect_timeout.FromTimedelta(timedelta(seconds=10))
        self.call("CreateMatch", request)

    def run(self, adhoc_every: float) -> None:
        """Keep the work going until `stopping` is set (a thread's target)."""
        next_tournaments = 0.0
        while not self.stopping.wait(adhoc_every * self.rng.uniform(0.5, 1.5)):
            self.adhoc_match()
            if time.monotonic() >= next_tournaments:
                self.keep_tournaments()
                next_tournaments = time.monotonic() + 10
            for bot in self.bots:  # a crashed bot (mode `crash`) is started again
                if not bot.alive and not bot.held:
                    bot.start(self.arena)

    def stop_bots(self) -> None:
        """Stop every bot process."""
        for bot in self.bots:
            if bot.process is not None and bot.alive:
                bot.process.terminate()
        for bot in self.bots:
            if bot.process is not None:
                try:
                    bot.process.wait(5)
                except subprocess.TimeoutExpired:
                    bot.process.kill()
                    bot.process.wait()
