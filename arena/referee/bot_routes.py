"""Messages between a bot's referee and the referee hosting its match.

The host's `Hub` knows a bot connected elsewhere as `Elsewhere` and sends it messages through the
relay (`TO_BOT`); the bot's referee forwards the bot's answers and resignations to the host
(`FROM_BOT`). A bot's comings and goings are announced to the hosts of its unfinished matches,
which then send it their MatchStarts and open requests. Every envelope from a host carries its
lease epoch: a message from a host that lost the match to a newer one is never shown to the bot,
and the bot's answers follow the newest host.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Protocol

from arena.referee.match import MatchRunner
from arena.referee.problems import not_yours
from arena.referee.registry import Registry
from arena.referee.relay import Envelope, Kind, Relay
from arena.referee.sessions import Hub, Session
from arena.storage.db import Database
from arena.storage.errors import StorageError
from arena.v1 import bot_pb2

log = logging.getLogger(__name__)


class Host(Protocol):
    """What the cluster needs of its referee (`arena.referee.app.Referee`)."""

    runners: dict[int, MatchRunner]
    hub: Hub
    db: Database
    draining: bool

    async def host_placed(self, match_id: int) -> None:
        """Claim and play a match another referee placed here."""


def match_of(message: bot_pb2.ArenaMessage) -> int:
    """The match an ArenaMessage is about (0 for none)."""
    kind = message.WhichOneof("kind")
    return int(getattr(getattr(message, kind), "match_id", 0)) if kind else 0


class BotRoutes:
    """This referee's end of the routes between bots and the hosts of their matches."""

    def __init__(self, referee: Host, relay: Relay, registry: Registry) -> None:
        self.referee = referee
        self.relay = relay
        self.registry = registry
        self.name = relay.name
        self.hosts: dict[int, tuple[str, int]] = {}
        """Match id -> (host, lease epoch) of matches hosted elsewhere that bots here play."""
        self._told: dict[int, set[str]] = {}
        """Bot id -> the other referees that were told the bot is connected here."""
        self.unannounced: set[int] = set()
        """Bots connected here whose announcement to the other referees failed."""
        self._tasks: set[asyncio.Task[None]] = set()

    def forget_hosts(self, live: set[str]) -> None:
        """Drop what is known of matches hosted by referees that are no longer live."""
        for match_id, (host, _) in list(self.hosts.items()):
            if host not in live:
                del self.hosts[match_id]

    async def bot_connected(self, session: Session) -> int:
        """Announce a new stream: an older one elsewhere is closed, the hosts of the bot's
        matches send it their MatchStarts and open requests. Returns how many unfinished
        matches the bot plays (0 if Redis or the database cannot say)."""
        try:
            previous = await self.registry.bot_here(
                session.bot_id, session.form, session.bot_name, session.follows
            )
            if previous is not None:
                opened = opened_ms(session)
                replaced = Envelope(Kind.REPLACED, self.name, session.bot_id, number=opened)
                self.relay.send(previous, replaced)
            return await self.announce(session)
        except Exception as exc:  # its matches hosted here still play; the heartbeat retries
            log.warning("bot %s: cannot announce it to the other referees: %s", session.bot_id, exc)
            self.unannounced.add(session.bot_id)
            return 0

    async def announce_again(self) -> None:
        """Announce the bots whose announcement failed (Redis or the database was down): till
        then the hosts of their matches elsewhere do not know where they are."""
        for bot_id in sorted(self.unannounced):
            session = self.referee.hub.session(bot_id)
            self.unannounced.discard(bot_id)
            if session is not None:
                await self.bot_connected(session)

    async def announce(self, session: Session) -> int:
        """Tell the hosts of the bot's unfinished matches that it is connected here."""
        matches = await self.referee.db.match_hosts_of_bot(session.bot_id)
        told = self._told.setdefault(session.bot_id, set())
        for host in {h for _, h in matches if h is not None and h != self.name}:
            told.add(host)
            self.relay.send(
                host, Envelope(Kind.CONNECTED, self.name, session.bot_id, number=session.form)
            )
        return len(matches)

    async def bot_disconnected(self, session: Session) -> None:
        """The stream ended: the hosts of its matches start the bot's reconnect grace."""
        if session.replaced or self.referee.hub.session(session.bot_id) is not None:
            return  # a newer stream holds the bot
        try:
            await self.registry.bot_left(session.bot_id)
        except Exception as exc:  # Redis down: the bot's key expires by itself
            log.warning("bot %s: cannot remove its presence: %s", session.bot_id, exc)
        for host in self._told.pop(session.bot_id, set()):
            self.relay.send(host, Envelope(Kind.DISCONNECTED, self.name, session.bot_id))

    async def forward(
        self, bot_id: int, message: bot_pb2.BotMessage, raw: bytes, *, refused_by: str = ""
    ) -> bot_pb2.ArenaMessage | None:
        """Send a bot's action or resignation to the referee hosting its match; a Problem if
        no live referee hosts it (`refused_by`: a referee that just said it does not)."""
        kind = message.WhichOneof("kind")
        part = message.action if kind == "action" else message.resign
        match_id = part.match_id
        decision = message.action.decision if kind == "action" else 0
        known = self.hosts.get(match_id)
        if known is None:
            try:
                stored = await self.referee.db.match_host(match_id)
            except StorageError:
                stored = None
            if stored is None or stored[0] in (None, self.name, refused_by):
                return not_yours(match_id, decision)
            known = self.hosts[match_id] = (stored[0], stored[1])
        self._told.setdefault(bot_id, set()).add(known[0])
        self.relay.send(known[0], Envelope(Kind.FROM_BOT, self.name, bot_id, match_id, 0, raw))
        return None

    async def _not_hosted(self, envelope: Envelope) -> None:
        """The host we sent a bot's answer to no longer hosts its match (it was taken over):
        look the host up again and send it there, once."""
        self.hosts.pop(envelope.match_id, None)
        session = self.referee.hub.session(envelope.bot_id)
        if session is None:
            return
        message = bot_pb2.BotMessage.FromString(envelope.payload)
        reply = await self.forward(
            envelope.bot_id, message, envelope.payload, refused_by=envelope.sender
        )
        if reply is not None:
            session.send(reply)

    # -- the relay's deliveries ------------------------------------------------------------------
    def to_bot(self, referee: str, bot_id: int, message: bot_pb2.ArenaMessage) -> None:
        match_id = match_of(message)
        runner = self.referee.runners.get(match_id)
        epoch = runner.epoch if runner is not None else 0
        payload = message.SerializeToString()
        self.relay.send(referee, Envelope(Kind.TO_BOT, self.name, bot_id, match_id, epoch, payload))

    async def receive(self, envelope: Envelope) -> None:
        hub = self.referee.hub
        kind, sender, bot_id = envelope.kind, envelope.sender, envelope.bot_id
        if kind is Kind.TO_BOT:
            self._deliver_to_bot(envelope)
        elif kind is Kind.FROM_BOT:
            self._from_bot(envelope)
        elif kind is Kind.CONNECTED:
            hub.connected_elsewhere(bot_id, sender, envelope.number)
            resume(self.referee, bot_id)
        elif kind in (Kind.DISCONNECTED, Kind.NOT_HERE):
            hub.gone_elsewhere(bot_id, sender)
            if envelope.payload:  # what did not reach it: kept if it must hear it, or resent
                hub.send(bot_id, bot_pb2.ArenaMessage.FromString(envelope.payload))
        elif kind is Kind.REPLACED:
            close_replaced(hub, envelope)
        elif kind is Kind.REVOKED:
            close_revoked(hub, bot_id, envelope.payload.decode(errors="replace"))
        elif kind is Kind.NOT_HOSTED:
            await self._not_hosted(envelope)
        elif kind is Kind.HOST:
            task = asyncio.create_task(self.referee.host_placed(envelope.match_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def revoke(self, bot_id: int, why: str) -> None:
        """Close the bot's stream wherever it is connected in the arena (its token is gone)."""
        close_revoked(self.referee.hub, bot_id, why)
        where = (await self.registry.locate([bot_id])).get(bot_id)
        if where is not None and where.referee != self.name:
            self.relay.send(
                where.referee, Envelope(Kind.REVOKED, self.name, bot_id, 0, 0, why.encode())
            )

    def _deliver_to_bot(self, envelope: Envelope) -> None:
        session = self.referee.hub.session(envelope.bot_id)
        if session is None:
            back = replace(envelope, kind=Kind.NOT_HERE, sender=self.name)
            self.relay.send(envelope.sender, back)
            return
        match_id, epoch = envelope.match_id, envelope.number
        if match_id:
            known = self.hosts.get(match_id)
            if known is not None and epoch < known[1]:
                return  # from a host that lost the match to a newer one: never shown
            self.hosts[match_id] = (envelope.sender, epoch)
        message = bot_pb2.ArenaMessage.FromString(envelope.payload)
        if message.WhichOneof("kind") == "match_end":
            self.hosts.pop(match_id, None)
        self._told.setdefault(envelope.bot_id, set()).add(envelope.sender)
        session.send(message)

    def _from_bot(self, envelope: Envelope) -> None:
        bot_id, match_id = envelope.bot_id, envelope.match_id
        runner = self.referee.runners.get(match_id)
        if runner is None:  # taken over or ended: the bot's referee looks again
            back = Envelope(Kind.NOT_HOSTED, self.name, bot_id, match_id, 0, envelope.payload)
            self.relay.send(envelope.sender, back)
            return
        message = bot_pb2.BotMessage.FromString(envelope.payload)
        if not runner.seats_of(bot_id):
            decision = message.action.decision if message.HasField("action") else 0
            send_back(self.relay, envelope.sender, bot_id, not_yours(match_id, decision))
            return
        if not self.referee.hub.is_connected(bot_id):
            # Its CONNECTED was lost (e.g. sent to a dead host): it is where its answer came from.
            self.reached(bot_id, envelope.sender, bot_pb2.PAYLOAD_FORM_UNSPECIFIED)
        if message.HasField("resign"):
            runner.resign(bot_id, message.resign.reason)
            return
        reply = runner.deliver(bot_id, message.action)
        if reply is not None:
            send_back(self.relay, envelope.sender, bot_id, reply)

    def reached(self, bot_id: int, referee: str, form: int) -> None:
        """The bot's stream is on `referee` (learnt from its answer, a lookup, a call-over). If
        no stream of it was known here, its requests went nowhere: send what it owes now."""
        hub = self.referee.hub
        known = hub.is_connected(bot_id)
        hub.connected_elsewhere(bot_id, referee, form)
        if not known and hub.is_connected(bot_id):
            resume(self.referee, bot_id)


def opened_ms(session: Session) -> int:
    """When `session`'s stream opened, in ms since the epoch (a REPLACED envelope's number)."""
    return int(session.connected_at * 1000)


def opened_before(session: Session, replaced_at: int) -> bool:
    """Whether `session` opened no later than the stream that replaces it, opened at
    `replaced_at` (ms since the epoch; 0 from a referee that does not say: replaced). A REPLACED
    sent when the bot left a referee that had just died is held by the relay and delivered
    after that referee restarts; if the bot has come back there meanwhile, closing its new
    stream would end the bot for good (the SDK takes ABORTED as another process taking over).
    Referees' clocks are assumed to agree to well under the time between two streams of a bot."""
    return replaced_at == 0 or opened_ms(session) <= replaced_at


def send_back(relay: Relay, referee: str, bot_id: int, message: bot_pb2.ArenaMessage) -> None:
    """Send `message` to the bot through `referee`, where its stream is (no match, no epoch)."""
    relay.send(
        referee, Envelope(Kind.TO_BOT, relay.name, bot_id, 0, 0, message.SerializeToString())
    )


def resume(referee: Host, bot_id: int) -> None:
    """Send the bot the MatchStarts and open requests of its matches hosted on `referee`."""
    for runner in list(referee.runners.values()):
        if runner.seats_of(bot_id):
            for message in runner.resume_messages(bot_id):
                referee.hub.send(bot_id, message)


def close_replaced(hub: Hub, envelope: Envelope) -> None:
    """The bot connected again on `envelope.sender`: close its stream here, unless this one
    is the newer (a late REPLACED, held while this referee was down)."""
    session = hub.session(envelope.bot_id)
    if session is not None and opened_before(session, envelope.number):
        session.replaced = True
        hub.disconnect(session)
    elif session is not None:
        newer = "bot %s: its stream here is newer than the one on %s"
        log.info(newer, envelope.bot_id, envelope.sender)


def close_revoked(hub: Hub, bot_id: int, why: str) -> None:
    """End the bot's stream on this referee, if it has one, with UNAUTHENTICATED and `why`."""
    session = hub.session(bot_id)
    if session is not None:
        session.revoked = why
        session.close()
