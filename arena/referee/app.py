"""The referee application: its bots, its running matches, and what both services share."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import engines
from arena.ops import metrics
from arena.ops.logs import log_context
from arena.referee import arguments
from arena.referee.clock import Clock
from arena.referee.limits import Limits, clip
from arena.referee.match import MatchRunner
from arena.referee.sessions import Hub
from arena.storage.db import Database
from arena.storage.errors import StorageError
from arena.storage.rows import MatchRow, TableKey
from arena.tournament.rating_store import rate_match

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """Settings of one referee process."""

    host: str = "referee-0"
    """This referee's name, stored with the matches it hosts."""
    admin_token: str = ""
    """The token admin calls need; empty means generate one at start."""
    reconnect_grace: timedelta = timedelta(seconds=10)
    """How long a dropped bot has to reconnect before its decisions time out."""
    default_clock: Clock = field(default_factory=Clock)
    """The clock of matches whose creator sets none."""
    connect_timeout: timedelta = timedelta(seconds=10)
    """How long a new match waits for its bots to connect before the clocks start anyway."""
    spectator_delay: timedelta = timedelta(0)
    """The least delay WatchMatch shows a running match with (a client may ask for more)."""
    limits: Limits = field(default_factory=Limits)
    """Message sizes, rates and queue bounds (see `arena.referee.limits`)."""
    adopt_interval: timedelta = timedelta(seconds=2)
    """How often a running referee looks for matches that a stopping referee released."""
    db_probe_interval: timedelta = timedelta(milliseconds=500)
    """How often the database is probed; health follows it (NOT_SERVING while it is down)."""


class Referee:
    """Shared state of the bot and public services."""

    def __init__(self, db: Database, config: RefereeConfig) -> None:
        self.db = db
        # A default clock out of range would crash every match it times (a timestamp overflow).
        arguments.check_clock("default clock", config.default_clock)
        self.config = config
        self.admin_token = config.admin_token or secrets.token_urlsafe(24)
        self.hub = Hub(config.reconnect_grace, config.limits.outbox_messages)
        self.runners: dict[int, MatchRunner] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.on_finish: list[Callable[[MatchRunner], Any]] = [self._rate_adhoc]
        metrics.start_referee_series(engines.names())
        self._adopter: asyncio.Task[None] | None = None
        self._creating = asyncio.Lock()
        """Held while a match is created or resumed, so one match never gets two runners."""

    async def _rate_adhoc(self, runner: MatchRunner) -> None:
        """Ad-hoc matches are rated as they finish (tournament rounds are rated together)."""
        try:
            runner.rating_changes = await rate_match(self.db, runner.match_id)
        except Exception:  # a rating failure must not lose the match; the match row stays unrated
            log.exception("match %s could not be rated", runner.match_id)

    # -- bots ------------------------------------------------------------------------------------
    async def bot_for_token_hash(self, digest: bytes) -> tuple[int, str] | None:
        """The (id, name) of the bot whose token hashes to `digest`."""
        row = await self.db.bot_by_token_hash(digest)
        return None if row is None else (row.id, row.name)

    # -- matches ---------------------------------------------------------------------------------
    async def create_match(
        self,
        game: str,
        bot_names: list[str],
        options: dict[str, Any],
        clock: Clock,
        seed: int,
        connect_timeout: timedelta | None = None,
        tournament: tuple[int, int, int] | None = None,
    ) -> int:
        """Create a match in storage and start playing it here; return its id.

        Raises `engines.EngineError` for an unknown game, bad options or seat count, and
        `LookupError` for an unknown bot.
        """
        rules = engines.get(game)
        rules.check_seats(len(bot_names))
        resolved = rules.resolve_options(options)
        if len(set(bot_names)) != len(bot_names):
            raise ValueError("a bot may hold only one seat in a match")
        bots = []
        for name in bot_names:
            row = await self.db.bot_by_name(name)
            if row is None:
                raise LookupError(f"unknown bot {clip(name)!r}")
            bots.append((row.id, row.name))
        explicit_seed = seed != 0
        seed = seed or secrets.randbits(62)
        async with self._creating:
            match_id = await self.db.create_match(
                game=game,
                rules_version=rules.version,
                options=resolved,
                seats=len(bots),
                seed=seed,
                clock=clock.to_json(),
                bot_ids=[b for b, _ in bots],
                tournament=None if tournament is None else TableKey(*tournament),
                # The same request again (same seed) is the same match, not a second one.
                reuse_active=explicit_seed,
            )
            if match_id in self.runners:
                return match_id
            existing = await self.db.match(match_id)
            if existing is None or existing.status.value in ("finished", "aborted"):
                return match_id
            await self.db.start_match(match_id, self.config.host)
            await self._launch(existing, connect_timeout)
        return match_id

    async def _launch(self, row: MatchRow, connect_timeout: timedelta | None = None) -> MatchRunner:
        """Play a stored match here, resuming it from its log if it has one."""
        rules = engines.get(row.game)
        decisions = await self.db.decisions(row.id)
        resume = None
        # Its host died or stopped: rebuild the match from its durable log. A match stored under
        # other rules goes through the replay too, which refuses it (and the match is aborted).
        if decisions or row.rules_version != rules.version:
            resume = await self.db.record(row.id)
            log.info("match %s resumes from decision %s", row.id, len(resume.moves))
        try:
            runner = MatchRunner(
                match_id=row.id,
                rules=rules,
                options=dict(row.options),
                seed=row.seed,
                clock=Clock.from_json(dict(row.clock)),
                bots=[(seat.bot_id, seat.bot_name) for seat in row.seating],
                hub=self.hub,
                store=self.db,
                host=self.config.host,
                connect_timeout=(
                    self.config.connect_timeout if connect_timeout is None else connect_timeout
                ),
                resume=resume,
            )
            runner.restore(decisions, [s.seat for s in row.seating if s.forfeited])
        except Exception as exc:  # e.g. a stored log that no longer replays: never strand it
            log.exception("match %s cannot be played; aborting it", row.id)
            metrics.MATCHES_ABORTED.labels(row.game).inc()
            with contextlib.suppress(StorageError):
                await self.db.abort_match(row.id, f"cannot be played: {str(exc)[:250]}")
            raise
        runner.on_finish.extend(self.on_finish)
        self.runners[row.id] = runner
        task = asyncio.create_task(self._run(runner), name=f"match-{row.id}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return runner

    async def resume_hosted(self, *, released_only: bool = False) -> list[int]:
        """Resume the unfinished matches stored as hosted here (and those released by others)."""
        async with self._creating:
            claimed = await self.db.claim_matches(self.config.host, released_only=released_only)
            resumed = []
            for match_id in claimed:
                row = await self.db.match(match_id)
                if match_id in self.runners or row is None:
                    continue
                if row.status.value not in ("pending", "running"):
                    continue
                try:
                    await self._launch(row)
                except engines.EngineError as exc:  # e.g. a game this build no longer has
                    log.error("match %s cannot be resumed: %s", match_id, exc)
                    continue
                resumed.append(match_id)
        if resumed:
            log.info("resumed matches %s", resumed)
        return resumed

    async def adopt_released(self, interval: timedelta) -> None:
        """Every `interval`, resume the matches other referees released as they stopped."""
        while True:
            await asyncio.sleep(interval.total_seconds())
            try:
                await self.resume_hosted(released_only=True)
            except StorageError as exc:  # the database is down: try again next time
                log.warning("cannot look for released matches: %s", exc)

    async def _run(self, runner: MatchRunner) -> None:
        with log_context(match_id=runner.match_id):
            try:
                outcome = await runner.run()
                log.info(
                    "match %s (%s) finished: ranks %s",
                    runner.match_id,
                    runner.game,
                    list(outcome.ranks),
                )
            except asyncio.CancelledError:
                log.info("match %s interrupted by shutdown", runner.match_id)
                raise
            except Exception as exc:  # the referee's own failure: abort, never strand the match
                log.exception("match %s crashed; aborting it", runner.match_id)
                await runner.abort(f"referee error: {type(exc).__name__}: {exc}")
            finally:
                self.runners.pop(runner.match_id, None)

    async def start(self) -> None:
        """Resume the matches stored as hosted here, then keep adopting released ones."""
        await self.resume_hosted()
        self._adopter = asyncio.create_task(
            self.adopt_released(self.config.adopt_interval), name="adopt-released"
        )

    async def shutdown(self) -> None:
        """Stop every match task, release their matches for resumption, close every bot stream."""
        if self._adopter is not None:
            self._adopter.cancel()
        hosted = sorted(self.runners)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        for session in self.hub.sessions():
            session.close()
        if hosted:
            try:
                released = await self.db.release_matches(self.config.host)
                log.info("released matches %s for another referee to resume", released)
            except StorageError as exc:  # they stay ours: this referee resumes them on restart
                log.warning("could not release matches %s: %s", hosted, exc)
