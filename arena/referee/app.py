"""The referee application: its bots, its running matches, and what both services share."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import redis.asyncio as aioredis

import engines
from arena.ops import metrics
from arena.ops.logs import log_context
from arena.referee import arguments, strikes
from arena.referee.clock import Clock
from arena.referee.cluster import Cluster, ClusterTimings
from arena.referee.lease_keeper import LeaseKeeper, LeaseTimings
from arena.referee.limits import Limits, clip
from arena.referee.match import MatchRunner
from arena.referee.sessions import Hub
from arena.storage.db import Database
from arena.storage.errors import Fenced, StorageError
from arena.storage.identity import arena_identity
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
    leases: LeaseTimings = field(default_factory=LeaseTimings)
    """How long a match's lease lasts, how often it is renewed, how often lapsed ones (a dead
    referee's, or released by a draining one) are looked for and taken over."""
    redis_url: str | None = None
    """The arena's Redis: set, this referee joins the others (bots connected to any referee
    play matches hosted by any); unset, it plays only bots connected to itself."""
    address: str = ""
    """Where bots and clients reach this referee, as the other referees list it."""
    cluster: ClusterTimings = field(default_factory=ClusterTimings)
    """How often this referee tells the others it is alive, and how long they believe it."""
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
        self.on_finish: list[Callable[[MatchRunner], Any]] = [functools.partial(rate_adhoc, db)]
        metrics.start_referee_series(engines.names())
        self._creating = asyncio.Lock()
        """Held while a match is created or resumed, so one match never gets two runners."""
        self.draining = False
        """Set on SIGTERM: no new match is placed here, and the running ones are handed over."""
        held = lambda: {i: r.epoch for i, r in self.runners.items() if not r.outcome}  # noqa: E731
        self.leases = LeaseKeeper(db, config.host, config.leases, held, self.drop, self._adopt)
        self.cluster: Cluster | None = None

    # -- bots ------------------------------------------------------------------------------------
    async def bot_for_token_hash(self, digest: bytes) -> tuple[int, str] | None:
        """The (id, name) of the bot whose token hashes to `digest`."""
        return await bot_for_token_hash(self.db, digest)

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
        require_connected: bool = False,
    ) -> int:
        """Create a match in storage and start playing it here; return its id (`EngineError`,
        `LookupError` or `NotConnected` say what the request asks that cannot be)."""
        rules = engines.get(game)
        rules.check_seats(len(bot_names))
        resolved = rules.resolve_options(options)
        bots = await seated_bots(self.db, bot_names)
        if require_connected:
            await check_connected(self, bots)
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
            host = self.config.host
            if self.cluster is not None:
                host = await self.cluster.place([b for b, _ in bots])
            if host != self.config.host and self.cluster is not None:
                if await self.db.assign_match(match_id, host, self.config.leases.lease):
                    self.cluster.send_host(host, match_id)
                    log.info("match %s placed on referee %s", match_id, host)
                return match_id
            epoch = await self.db.claim_match(match_id, host, self.config.leases.lease)
            if epoch is not None:  # else a live referee hosts it already
                await self._launch(existing, epoch, connect_timeout)
        return match_id

    async def host_placed(self, match_id: int) -> None:
        """Play a match another referee placed here (its lease names this referee)."""
        try:
            async with self._creating:
                if match_id in self.runners or self.draining:
                    return
                epoch = await self.db.claim_match(
                    match_id, self.config.host, self.config.leases.lease
                )
                row = await self.db.match(match_id)
                if epoch is None or row is None:
                    return
                await self._launch(row, epoch)
        except (StorageError, engines.EngineError) as exc:  # its lease lapses; a scan retries
            log.warning("match %s placed here could not start: %s", match_id, exc)

    async def _launch(
        self, row: MatchRow, epoch: int, connect_timeout: timedelta | None = None
    ) -> MatchRunner:
        """Play a stored match here under lease `epoch`, resuming it from its log if it has one."""
        rules = engines.get(row.game)
        decisions = await self.db.decisions(row.id)
        resume = None
        # Its host died or stopped: rebuild it from its log (other rules: the replay refuses it).
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
                epoch=epoch,
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
                await self.db.abort_match(row.id, f"cannot be played: {str(exc)[:250]}", epoch)
            raise
        if self.cluster is not None:
            await self.cluster.host(runner)
        strikes.repeat_recent(self.hub, row.id, runner.seats, decisions)  # lost with its host?
        runner.on_finish.extend(self.on_finish)
        self.runners[row.id] = runner
        task = asyncio.create_task(play_to_end(runner), name=f"match-{row.id}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(lambda _: self._forget(runner))
        return runner

    def _forget(self, runner: MatchRunner) -> None:
        if self.runners.get(runner.match_id) is runner:
            del self.runners[runner.match_id]

    async def resume_hosted(self) -> list[int]:
        """Resume the matches stored as hosted here (a restart), then at once (not after a
        scan interval) take over those released or left by stopped referees."""
        claimed = await self.db.claim_own_matches(self.config.host, self.config.leases.lease)
        return await self._adopt(claimed, "restart") + await self.leases.scan()

    async def _adopt(self, claimed: list[tuple[int, int]], reason: str) -> list[int]:
        """Play matches just claimed, given as (match id, epoch)."""
        resumed = []
        async with self._creating:
            for match_id, epoch in claimed:
                row = await self.db.match(match_id)
                if match_id in self.runners or row is None:
                    continue
                if row.status.value not in ("pending", "running"):
                    continue
                try:
                    await self._launch(row, epoch)
                except engines.EngineError as exc:  # e.g. a game this build no longer has
                    log.error("match %s cannot be resumed: %s", match_id, exc)
                    continue
                if reason != "restart":
                    metrics.TAKEOVERS.labels(self.config.host, reason).inc()
                resumed.append(match_id)
        if resumed:
            log.info("resumed matches %s (%s)", resumed, reason)
        return resumed

    def drop(self, match_id: int) -> None:
        """Stop playing a match another referee took over: no abort, no word to the bots."""
        runner = self.runners.pop(match_id, None)
        if runner is not None:
            runner.lost = True
            for task in self.tasks:
                if task.get_name() == f"match-{match_id}":
                    task.cancel()

    async def start(self) -> None:
        """Join the other referees (with Redis), resume the matches stored as hosted here,
        then keep renewing leases and taking over lapsed ones."""
        if url := self.config.redis_url:
            at, host = self.config.address, self.config.host
            ns = await arena_identity(self.db.pool)
            cluster = Cluster(
                self, aioredis.Redis.from_url(url), ns, host, at or host, self.config.cluster
            )
            await cluster.start()  # closes its Redis connections if it cannot join
            self.cluster = cluster
        await self.resume_hosted()
        self.leases.start()

    async def shutdown(self) -> None:
        """Drain (see `drain`)."""
        await drain(self)


async def check_connected(referee: Referee, bots: list[tuple[int, str]]) -> None:
    """Raise `NotConnected` naming those of (id, name) `bots` with no stream open to a live
    referee of the arena."""
    here = {session.bot_id for session in referee.hub.sessions()}
    absent = [(bot_id, name) for bot_id, name in bots if bot_id not in here]
    if absent and referee.cluster is not None:
        try:
            elsewhere = await referee.cluster.registry.everyone()
        except Exception as exc:  # Redis down: only this referee's own bots are known
            log.warning("cannot see the bots connected to other referees: %s", exc)
            elsewhere = {}
        absent = [(bot_id, name) for bot_id, name in absent if bot_id not in elsewhere]
    if absent:
        raise NotConnected(f"not connected: {', '.join(name for _, name in absent)}")


class NotConnected(Exception):
    """A match that must start with every bot present names bots that are not connected."""


async def seated_bots(db: Database, names: list[str]) -> list[tuple[int, str]]:
    """(id, name) of the bots to seat, in seat order; `ValueError` for a bot named twice,
    `LookupError` for an unknown one."""
    if len(set(names)) != len(names):
        raise ValueError("a bot may hold only one seat in a match")
    bots = []
    for name in names:
        row = await db.bot_by_name(name)
        if row is None:
            raise LookupError(f"unknown bot {clip(name)!r}")
        bots.append((row.id, row.name))
    return bots


async def play_to_end(runner: MatchRunner) -> None:
    """Play a match and log how it ended; a crash of the referee's own aborts it (never
    strands it), and a match another referee took over stops here without a word."""
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
            if runner.lost:
                log.warning("match %s: stopped here, another referee hosts it", runner.match_id)
                return
            log.info("match %s interrupted by shutdown", runner.match_id)
            raise
        except Fenced as exc:  # taken over while this referee was stalled: not ours to end
            log.warning("match %s: stopped here: %s", runner.match_id, exc)
            runner.lost = True
            metrics.FENCED_WRITES.labels(runner.host).inc()
        except Exception as exc:  # the referee's own failure: abort, never strand the match
            log.exception("match %s crashed; aborting it", runner.match_id)
            await runner.abort(f"referee error: {type(exc).__name__}: {exc}")


async def drain(referee: Referee) -> None:
    """Drain: take no new match, hand every running one over to the other referees (or to
    this one's next start), close every bot stream, leave the arena."""
    referee.draining = referee.leases.draining = True
    await referee.leases.stop()
    hosted = sorted(referee.runners)
    for task in list(referee.tasks):
        task.cancel()
    await asyncio.gather(*referee.tasks, return_exceptions=True)
    if hosted:
        try:
            released = await referee.db.release_matches(referee.config.host, hosted)
            log.info("released matches %s for another referee to resume", released)
            if referee.cluster is not None:
                await referee.cluster.hand_over(released)
        except StorageError as exc:  # they stay ours: this referee resumes them on restart
            log.warning("could not release matches %s: %s", hosted, exc)
    for session in referee.hub.sessions():
        session.draining = True
        session.close()
    if referee.cluster is not None:
        await referee.cluster.stop()


async def rate_adhoc(db: Database, runner: MatchRunner) -> None:
    """Ad-hoc matches are rated as they finish (tournament rounds are rated together)."""
    try:
        runner.rating_changes = await rate_match(db, runner.match_id)
    except Exception:  # a rating failure must not lose the match; the match row stays unrated
        log.exception("match %s could not be rated", runner.match_id)


async def bot_for_token_hash(db: Database, digest: bytes) -> tuple[int, str] | None:
    """The (id, name) of the bot whose token hashes to `digest`."""
    row = await db.bot_by_token_hash(digest)
    return None if row is None else (row.id, row.name)
