"""One referee among several: bots connected anywhere, matches hosted anywhere.

A match is played by the referee that hosts it (holds its lease); a bot's stream may be open on
any referee. The hosting referee's `Hub` knows such a bot as `Elsewhere` and sends it messages
through the `Relay`; the bot's referee forwards its answers to the host. Who is alive and where
each bot is connected lives in the `Registry` (Redis keys that expire). The lichess split of
socket servers from the game server, talking over Redis, is the model.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from arena.ops import metrics
from arena.referee import step_news
from arena.referee.bot_routes import BotRoutes, Host
from arena.referee.placement import place
from arena.referee.registry import Presence, RefereeInfo, Registry
from arena.referee.relay import Envelope, Kind, Relay
from arena.v1 import bot_pb2

if TYPE_CHECKING:  # for annotations only: match.py is far below the cluster
    from arena.referee.match import MatchRunner

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ClusterTimings:
    """How often a referee says it is alive, and how long the others wait before they stop
    believing it."""

    beat: timedelta = timedelta(seconds=1)
    ttl: timedelta = timedelta(seconds=5)


FOLLOW_WAIT = timedelta(seconds=1)
"""How long the host of a new match waits for a bot that follows its matches (told by MatchHost)
to open its stream here, before relaying the match to the referee the bot stayed on."""


class CannotJoin(RuntimeError):
    """The referee cannot join the arena: its name is taken, or Redis does not answer."""


class NameTaken(CannotJoin):
    """A live referee already uses this referee's name."""


class Cluster:
    """This referee's side of the arena's referee tier."""

    def __init__(
        self,
        referee: Host,
        redis: aioredis.Redis,
        namespace: str,
        name: str,
        address: str,
        timings: ClusterTimings = ClusterTimings(),
    ) -> None:
        self.referee = referee
        self.redis = redis
        self.name = name
        self.timings = timings
        self.registry = Registry(redis, namespace, name, address, timings.ttl)
        self.relay = Relay(redis, namespace, name, self._receive)
        self.routes = BotRoutes(referee, self.relay, self.registry)
        self.live: list[RefereeInfo] = []
        self._beating: asyncio.Task[None] | None = None
        self._calls: set[asyncio.Task[None]] = set()
        """Waits for bots called over to a match hosted here (`_call_over`)."""

    # -- life ----------------------------------------------------------------------------------
    async def start(self) -> None:
        """Join the arena: refuse a name a live referee uses, subscribe, start the heartbeat."""
        try:
            await self._join()
        except BaseException as exc:
            # A referee that cannot join never calls `stop`: close its Redis connections here.
            await self.relay.stop()
            await self.redis.aclose()
            if isinstance(exc, (OSError, RedisError)):
                raise CannotJoin(f"cannot reach the arena's Redis: {exc}") from exc
            raise

    async def _join(self) -> None:
        # A referee restarted right after a crash finds its old entry until it expires.
        until = time.monotonic() + (self.timings.ttl + self.timings.beat).total_seconds()
        while not await self.registry.claim_name() and time.monotonic() < until:
            await asyncio.sleep(self.timings.beat.total_seconds() / 2)
        if not await self.registry.claim_name():
            raise NameTaken(f"a live referee is already named {self.name!r}")
        await self.relay.start()
        self.referee.hub.remote_send = self.routes.to_bot
        await self._beat()
        self._beating = asyncio.create_task(self._beat_forever(), name="referee-heartbeat")

    async def stop(self) -> None:
        """Leave the arena: the others stop routing here at once instead of after the TTL."""
        if self._beating is not None:
            self._beating.cancel()
        try:
            await self.registry.leave()
        except Exception as exc:  # Redis down: the entry expires by itself
            log.warning("could not leave the referee registry: %s", exc)
        await self.relay.stop()
        await self.redis.aclose()

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(self.timings.beat.total_seconds())
            try:
                await self._beat()
            except Exception as exc:  # Redis down: keep playing local matches, try again
                log.warning("referee heartbeat failed: %s", exc)

    async def _beat(self) -> None:
        hub = self.referee.hub
        bots = {s.bot_id: (s.form, s.bot_name) for s in hub.sessions()}
        following = {s.bot_id for s in hub.sessions() if s.follows}
        hosted, draining = len(self.referee.runners), self.referee.draining
        was_dead = await self.registry.beat(hosted, bots, draining, following)
        await self.routes.announce_again()
        if was_dead and self.live:
            # Taken for dead (e.g. paused): the hosts may have given up on our bots; tell them.
            log.warning("this referee's registry entry had expired; announcing its bots again")
            for session in hub.sessions():
                await self.routes.announce(session)
        self.live = await self.registry.live()
        names = {r.name for r in self.live}
        metrics.LIVE_REFEREES.labels(self.name).set(len(names))
        metrics.REFEREE_HOSTED_MATCHES.labels(self.name).set(len(self.referee.runners))
        for bot_id, referee in hub.bots_elsewhere().items():
            if referee not in names:  # its referee died: the reconnect grace starts now
                hub.gone_elsewhere(bot_id, referee)
        self.routes.forget_hosts(names)

    # -- placement -------------------------------------------------------------------------------
    async def place(self, bot_ids: Sequence[int]) -> str:
        """The referee a new match of these bots goes to (see `placement.place`); this one
        while Redis does not answer. Only the bots that stay where they are pin the match to
        their referees: those that follow their matches move to wherever it is placed, so a
        match of followers goes to the least loaded referee."""
        hub = self.referee.hub
        sessions = {b: s for b in bot_ids if (s := hub.session(b)) is not None}
        where = {self.name for s in sessions.values() if not s.follows}
        try:
            located = await self.registry.locate([b for b in bot_ids if b not in sessions])
            where |= {p.referee for p in located.values() if not p.follows}
            chosen = place(where, self.live, self.name)
            if chosen != self.name:
                await self.registry.count_placed(chosen)
        except Exception as exc:  # Redis down: host it here, where nothing needs routing
            log.warning("placing a match here, Redis does not answer: %s", exc)
            return self.name
        # Counted until the next heartbeat reads the loads again: a burst of matches spreads.
        self.live = [replace(r, hosted=r.hosted + 1) if r.name == chosen else r for r in self.live]
        return chosen

    async def hand_over(
        self, match_ids: Sequence[int], wait: timedelta = timedelta(seconds=3)
    ) -> None:
        """Ask the other live referees to host matches this draining one released (spread over
        them, least loaded first), and wait a little for them to take them: the bots connected
        here are told to leave only after their matches have a new host."""
        others = sorted(
            (r for r in self.live if r.name != self.name and not r.draining),
            key=lambda r: (r.hosted, r.name),
        )
        if not others or not match_ids:
            return
        for i, match_id in enumerate(match_ids):
            self.send_host(others[i % len(others)].name, match_id)
        waiting, until = set(match_ids), time.monotonic() + wait.total_seconds()
        while waiting and time.monotonic() < until:
            await asyncio.sleep(0.05)
            for match_id in sorted(waiting):
                stored = await self.referee.db.match_host(match_id)
                if stored is None or stored[0] not in (None, self.name):
                    waiting.discard(match_id)
        if waiting:
            log.warning("matches %s not yet taken over; a scan will", sorted(waiting))

    def publish_step(self, match_id: int, decision: int, end: bool) -> None:
        """Tell web pages that match `match_id` logged `decision` (or ended); never blocks."""
        self.relay.publish(
            step_news.channel(self.relay.namespace, match_id),
            step_news.encode(match_id, decision, end),
        )

    async def host(self, runner: MatchRunner) -> None:
        """A match starts (or resumes) here: find its bots (calling over those that follow
        their matches), and publish its steps' news."""
        await self.locate_seats([seat.bot_id for seat in runner.seats], runner)
        runner.watchers.append(step_news.StepNews(runner.match_id, self.publish_step))

    def send_host(self, referee: str, match_id: int) -> None:
        """Ask `referee` to host a match placed on it."""
        self.relay.send(referee, Envelope(Kind.HOST, self.name, match_id=match_id))

    async def locate_seats(self, bot_ids: Sequence[int], runner: MatchRunner | None = None) -> None:
        """Learn which of a match's bots are connected to other referees (a match just created
        or taken over here); those that follow their matches are told to come here (`runner`'s
        match)."""
        hub = self.referee.hub
        missing = [b for b in bot_ids if hub.session(b) is None]
        try:
            located = await self.registry.locate(missing)
        except Exception as exc:  # Redis down: its bots connected here still play
            log.warning("cannot locate the bots of a match: %s", exc)
            return
        for bot_id, found in located.items():
            if found.referee == self.name:
                continue
            if runner is not None and found.follows:
                self._call_over(runner, bot_id, found)
            else:
                self.routes.reached(bot_id, found.referee, found.form)

    def _call_over(self, runner: MatchRunner, bot_id: int, found: Presence) -> None:
        """Tell a bot that follows its matches that `runner`'s match is hosted here; until it
        connects here (at most `FOLLOW_WAIT`), the match holds its messages, and then relays
        them to where the bot is if it stayed there."""
        where = bot_pb2.MatchHost(
            match_id=runner.match_id, referee=self.name, address=self.registry.address
        )
        payload = bot_pb2.ArenaMessage(match_host=where).SerializeToString()
        envelope = Envelope(Kind.TO_BOT, self.name, bot_id, runner.match_id, runner.epoch, payload)
        self.relay.send(found.referee, envelope)
        task = asyncio.create_task(self._relay_unless_moved(bot_id, found))
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    async def _relay_unless_moved(self, bot_id: int, found: Presence) -> None:
        hub = self.referee.hub
        if not await hub.wait_connected([bot_id], FOLLOW_WAIT):
            log.info("bot %s stays on referee %s; its match is relayed", bot_id, found.referee)
            self.routes.reached(bot_id, found.referee, found.form)

    async def _receive(self, envelope: Envelope) -> None:
        await self.routes.receive(envelope)
