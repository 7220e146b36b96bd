"""`arena bot test`: a throwaway local arena that plays a bot author's program against the
reference bots and reports every illegal or late answer with the decision that caused it.

The arena is a referee in this process over a throwaway embedded Postgres (or a throwaway database
on ARENA_DATABASE_URL's server), listening on a free loopback port. The author's program runs as a
child process and finds the arena through the environment, as under `arena up`:

    ARENA_ADDRESS=127.0.0.1:<port>  ARENA_BOT_TOKEN=<its token>

The reference opponents run in this process on the same referee.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TextIO

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

import engines
from arena.cli.errors import CliError, ExitCode
from arena.referee.app import Referee, RefereeConfig
from arena.referee.auth import token_hash
from arena.referee.clock import Clock
from arena.referee.server import create_server
from arena.sdk import StrategyBot
from arena.sdk.tls import PLAINTEXT
from arena.storage import Database
from arena.storage.botstats import read_strike_note
from arena.storage.embedded import EmbeddedPostgres
from arena.storage.rows import MatchRow

CONNECT_TIMEOUT = timedelta(seconds=30)
"""How long the bot program under test has to connect."""
AUTHOR = "my-bot"


@dataclass(frozen=True, slots=True)
class Fault:
    """One answer of the author's bot that was replaced by the default action."""

    match_id: int
    decision: int
    label: str
    kind: str
    """The strike's kind: timeout, invalid_action, illegal_action or stale_decision."""
    why: str
    played: object
    """The default action the referee played instead (wire form)."""


@dataclass
class TrialReport:
    """What the trial found."""

    matches: int = 0
    ranks: list[tuple[int, int]] = field(default_factory=list)
    """(rank, seats) per match."""
    forfeits: int = 0
    faults: list[Fault] = field(default_factory=list)
    think: list[float] = field(default_factory=list)

    def summary(self) -> str:
        """One line: matches, wins, mean rank, faults and think time."""
        wins = sum(1 for rank, _ in self.ranks if rank == 1)
        mean = statistics.fmean(r for r, _ in self.ranks) if self.ranks else 0.0
        think = ""
        if self.think:
            ordered = sorted(self.think)
            p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
            think = f", think time median {statistics.median(ordered) * 1000:.0f} ms"
            think += f" p95 {p95 * 1000:.0f} ms max {ordered[-1] * 1000:.0f} ms"
        late = sum(1 for f in self.faults if f.kind == "timeout")
        return (
            f"{self.matches} matches: {wins} won, mean rank {mean:.2f}, {len(self.faults)} "
            f"bad answers ({late} late, {len(self.faults) - late} illegal or invalid), "
            f"{self.forfeits} forfeits{think}"
        )


def bot_command(path: str, cmd: str) -> list[str]:
    """The argv of the author's bot: `--cmd` split like a shell would, or `python PATH`."""
    if cmd:
        argv = shlex.split(cmd)
        if not argv:
            raise CliError("--cmd is empty", 'e.g. --cmd "node bot.js"')
        return argv
    if not path:
        raise CliError(
            "which bot?", 'pass a Python file (arena bot test ./my_bot.py) or --cmd "..."'
        )
    file = Path(path)
    if not file.is_file():
        raise CliError(
            f"no such file: {path}",
            "pass the path of your bot program (arena bot test ./my_bot.py)",
            ExitCode.NOT_FOUND,
        )
    if file.suffix == ".py":
        return [sys.executable, str(file.resolve())]
    if os.access(file, os.X_OK):
        return [str(file.resolve())]
    raise CliError(f"{path} is neither a .py file nor executable", 'use --cmd "interpreter file"')


@contextlib.contextmanager
def _throwaway_database(folder: Path) -> Iterator[str]:
    server_url = os.environ.get("ARENA_DATABASE_URL")
    if server_url:
        name = f"arena_trial_{secrets.token_hex(6)}"
        admin = make_conninfo(server_url, dbname="postgres")
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        try:
            yield make_conninfo(server_url, dbname=name)
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(
                    sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
                )
        return
    server = EmbeddedPostgres(folder, fsync=False)
    try:
        yield server.start()
    finally:
        server.stop()


@dataclass
class Trial:
    """The settings of one `arena bot test` run."""

    argv: Sequence[str]
    game: str
    matches: int
    seats: int
    opponents: str
    per_decision: float
    seed: int
    out: TextIO

    def run(self) -> TrialReport:
        """Set up the arena, play the matches, print and return the report."""
        rules = engines.get(self.game)
        seats = self.seats or min(rules.seat_counts)
        if seats not in rules.seat_counts:
            raise CliError(
                f"{rules.name} is played by {min(rules.seat_counts)}-{max(rules.seat_counts)} "
                f"seats, not {seats}"
            )
        folder = Path(tempfile.mkdtemp(prefix="arena-bot-test-"))
        folder.chmod(0o755)  # an embedded Postgres under root runs as `nobody`
        try:
            with _throwaway_database(folder) as url:
                return asyncio.run(self._play(url, seats, folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def _say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    async def _play(self, database_url: str, seats: int, folder: Path) -> TrialReport:
        db = await Database.open(database_url)
        await db.migrate()
        # No bank: every answer slower than per_decision is reported as late.
        clock = Clock(per_decision=timedelta(seconds=self.per_decision), bank=timedelta(0))
        config = RefereeConfig(
            host="bot-test", default_clock=clock, connect_timeout=timedelta(seconds=5)
        )
        running = await create_server(Referee(db, config), "127.0.0.1:0")
        referee = running.referee
        opponents = [f"{self.opponents}-{i}" for i in range(1, seats)]
        helpers: list[tuple[StrategyBot, asyncio.Task[None]]] = []
        log = folder / "bot.log"
        try:
            tokens = {}
            for name in [AUTHOR, *opponents]:
                tokens[name] = secrets.token_urlsafe(24)
                await db.create_bot(name, token_hash(tokens[name]))
            for i, name in enumerate(opponents):
                bot = StrategyBot(self.opponents, seed=self.seed + i)
                helpers.append(
                    (
                        bot,
                        asyncio.create_task(
                            bot.run_async(running.address, tokens[name], PLAINTEXT)
                        ),
                    )
                )
            async with self._author(running.address, tokens[AUTHOR], log) as process:
                author_id = await self._until_connected(referee, process, log)
                self._say(
                    f"arena on {running.address}: {self.matches} {self.game} matches, "
                    f"{seats} seats, {self.per_decision:g}s per decision, your bot against "
                    f"{', '.join(opponents)}"
                )
                return await self._matches(referee, db, author_id, opponents, clock, process, log)
        finally:
            for bot, task in helpers:
                bot.stop()
                task.cancel()  # also when it never got to run (the author's bot failed at once)
            await asyncio.gather(*(task for _, task in helpers), return_exceptions=True)
            await running.stop(timedelta(milliseconds=200))
            await db.close()

    @contextlib.asynccontextmanager
    async def _author(
        self, address: str, token: str, log: Path
    ) -> AsyncIterator[subprocess.Popen[bytes]]:
        env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_BOT_TOKEN": token}
        env |= PLAINTEXT.environ()  # this throwaway arena is plaintext, whatever the shell says
        with log.open("wb") as output:
            try:
                process = subprocess.Popen(
                    list(self.argv),
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError as exc:
                raise CliError(
                    f"cannot start {shlex.join(self.argv)}: {exc.strerror}",
                    "check the command (is its interpreter installed and on PATH?)",
                    ExitCode.NOT_FOUND,
                ) from None
        try:
            yield process
        finally:
            process.terminate()
            try:
                await asyncio.to_thread(process.wait, 5)
            except subprocess.TimeoutExpired:
                process.kill()
                await asyncio.to_thread(process.wait)

    def _died(self, process: subprocess.Popen[bytes], log: Path, when: str) -> CliError:
        tail = log.read_text(errors="replace").strip().splitlines()[-5:] if log.exists() else []
        output = " | ".join(tail) or "no output"
        return CliError(
            f"your bot exited with status {process.returncode} {when}: {output}",
            "it must connect to ARENA_ADDRESS with the token in ARENA_BOT_TOKEN",
            ExitCode.FAILED,
        )

    async def _until_connected(
        self, referee: object, process: subprocess.Popen[bytes], log: Path
    ) -> int:
        hub = referee.hub  # type: ignore[attr-defined]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CONNECT_TIMEOUT.total_seconds()
        while True:
            for session in hub.sessions():
                if session.bot_name == AUTHOR:
                    return int(session.bot_id)
            if process.poll() is not None:
                raise self._died(process, log, "before connecting")
            if loop.time() > deadline:
                raise CliError(
                    f"your bot did not connect within {CONNECT_TIMEOUT.total_seconds():g}s",
                    "it must connect to ARENA_ADDRESS with the token in ARENA_BOT_TOKEN",
                    ExitCode.FAILED,
                )
            await asyncio.sleep(0.05)

    async def _matches(
        self,
        referee: Referee,
        db: Database,
        author_id: int,
        opponents: list[str],
        clock: Clock,
        process: subprocess.Popen[bytes],
        log: Path,
    ) -> TrialReport:
        report = TrialReport()
        seats = len(opponents) + 1
        for number in range(self.matches):
            seat = number % seats
            names = [*opponents[:seat], AUTHOR, *opponents[seat:]]
            match_id = await referee.create_match(
                self.game, names, {}, clock, self.seed + number + 1
            )
            row = await self._finished(db, match_id, process, log)
            decisions = await db.decisions(match_id)
            mine = next(s for s in row.seating if s.bot_id == author_id)
            report.matches += 1
            report.ranks.append((mine.rank or seats, seats))
            report.forfeits += int(mine.forfeited)
            for d in decisions:
                if seat in d.elapsed and seat not in d.strikes:
                    report.think.append(d.elapsed[seat].total_seconds())
                if seat in d.strikes:
                    kind, why = read_strike_note(d.strikes[seat])
                    fault = Fault(match_id, d.number, d.label, kind, why, d.joint.get(seat))
                    report.faults.append(fault)
                    self._say(
                        f"  match {match_id} decision {d.number} ({d.label}): {fault.why}; "
                        f"played instead: {json.dumps(fault.played)}"
                    )
            forfeit = ", forfeited" if mine.forfeited else ""
            self._say(
                f"match {match_id}: seat {seat}, rank {mine.rank} of {seats}, score "
                f"{mine.score:g}{forfeit}"
            )
        self._say(report.summary())
        return report

    async def _finished(
        self, db: Database, match_id: int, process: subprocess.Popen[bytes], log: Path
    ) -> MatchRow:
        while True:
            row = await db.match(match_id)
            if row is not None and row.status.value in ("finished", "aborted"):
                return row
            if process.poll() is not None:
                raise self._died(process, log, f"during match {match_id}")
            await asyncio.sleep(0.1)
