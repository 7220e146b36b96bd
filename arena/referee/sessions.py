"""Bot sessions: one open stream per bot, its outbox, and the decisions it owes.

A bot's stream may drop and come back; its matches keep running. Requests sent while it is away
wait in `Pending` and are sent again on reconnect, and the clock gives it `reconnect_grace` to
return before the decision times out. What the bot must be told and could not be, because no
stream of it was known here (a Problem, a MatchEnd), is kept and sent once one is: a host can
lose track of a bot whose stream never dropped (its referee's announcement lost in a Redis
outage), and a bot that answered must hear that its answer was not used.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from arena.ops import metrics
from arena.v1 import bot_pb2


@dataclass(eq=False)
class Pending:
    """A decision request a seat has not answered yet."""

    match_id: int
    seat: int
    decision: int
    bot_id: int
    request: bot_pb2.DecisionRequest
    deadline: float
    """`time.monotonic()` after which the seat times out (grace included)."""
    sent_at: float = 0.0
    answer: asyncio.Future[bot_pb2.Action] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    rearm: Callable[[], object] | None = field(default=None, repr=False)
    """Set while the seat's waiter awaits `answer`: re-reads the deadline and re-arms its timer,
    called when the deadline moves (a reconnect or a disconnect)."""

    def deadline_moved(self) -> None:
        """Have the waiter, if any, re-read the deadline."""
        if self.rearm is not None:
            self.rearm()


class Session:
    """One open bot stream; its outbox holds at most `outbox_limit` unsent messages."""

    def __init__(self, bot_id: int, bot_name: str, outbox_limit: int = 1000) -> None:
        self.bot_id = bot_id
        self.bot_name = bot_name
        self.outbox_limit = outbox_limit
        # One slot more than the limit, so the end-of-stream marker always fits.
        self.outbox: asyncio.Queue[bot_pb2.ArenaMessage | None] = asyncio.Queue(outbox_limit + 1)
        self.connected_at = time.time()
        self.closed = False
        self.replaced = False
        """Closed because a newer stream of the same bot took over (it ends with ABORTED)."""
        self.fell_behind = False
        """Set when the bot stopped reading and its outbox overflowed: the stream is closed."""
        self.flooded = False
        """Set when the bot sent messages faster than its rate limit: the stream is closed."""
        self.draining = False
        """Set when this referee stops: the bot is told to reconnect to another one."""
        self.revoked: str | None = None
        """Set when the bot's owner rotated its token or retired it: the stream ends with
        UNAUTHENTICATED and this message."""
        self.form: int = bot_pb2.PAYLOAD_FORM_UNSPECIFIED
        """The forms of view and legal actions the bot asked for in its Hello."""
        self.follows = False
        """The bot moves its stream to the referee hosting its match when told (its Hello)."""

    def send(self, message: bot_pb2.ArenaMessage) -> None:
        """Queue a message for the bot; dropped once the stream is closed.

        A bot that lets `outbox_limit` messages pile up is disconnected: the queue is emptied and
        the stream ends with RESOURCE_EXHAUSTED. Its decisions are sent again when it reconnects.
        """
        if self.closed:
            return
        if self.outbox.qsize() >= self.outbox_limit:
            self.fell_behind = True
            metrics.SLOW_CONSUMER_DISCONNECTS.inc()
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.close()
            return
        self.outbox.put_nowait(message)

    def close(self) -> None:
        """End the stream's writer."""
        if not self.closed:
            self.closed = True
            self.outbox.put_nowait(None)


@dataclass(frozen=True, slots=True)
class Elsewhere:
    """A bot whose stream is open on another referee of the arena."""

    referee: str
    form: int


KEPT_FOR_LATER = 200
"""Most undeliverable Problems and MatchEnds kept per bot (the oldest dropped first)."""
_KEPT_KINDS = frozenset({"problem", "match_end"})
"""What a bot must hear even if it comes back late: a request is sent again from `Pending`."""


RemoteSend = Callable[[str, int, bot_pb2.ArenaMessage], None]
"""Hands a message for a bot to the referee it is connected to (through Redis)."""


class Hub:
    """Every bot's session and pending decisions, keyed by bot id.

    A bot is connected here (a `Session`) or, in an arena of several referees, on another
    referee (`Elsewhere`): messages for it then go through `remote_send`.
    """

    def __init__(self, reconnect_grace: timedelta, outbox_limit: int = 1000) -> None:
        self.reconnect_grace = reconnect_grace
        self.outbox_limit = outbox_limit
        self.remote_send: RemoteSend | None = None
        self._elsewhere: dict[int, Elsewhere] = {}
        self._sessions: dict[int, Session] = {}
        self._left_at: dict[int, float] = {}
        self._pending: dict[tuple[int, int], Pending] = {}
        """(match_id, seat) -> what that seat owes."""
        self._kept: dict[int, deque[bot_pb2.ArenaMessage]] = {}
        """Bot id -> Problems and MatchEnds sent while no stream of it was known here."""

    # -- sessions --------------------------------------------------------------------------------
    def connect(self, bot_id: int, bot_name: str) -> Session:
        """Register a new stream for a bot; an older stream of that bot is closed as replaced."""
        old = self._sessions.get(bot_id)
        if old is not None:
            old.replaced = True
            old.close()
        else:
            metrics.CONNECTED_BOTS.inc()
        session = Session(bot_id, bot_name, self.outbox_limit)
        self._sessions[bot_id] = session
        self._elsewhere.pop(bot_id, None)
        self._came_back(bot_id)
        return session

    def _came_back(self, bot_id: int) -> None:
        self._left_at.pop(bot_id, None)
        for pending in self._pending.values():
            if pending.bot_id == bot_id:
                # A fair window after coming back: at least one full per-decision limit.
                pending.deadline_moved()
        for message in self._kept.pop(bot_id, ()):
            self.send(bot_id, message)

    def _went_away(self, bot_id: int) -> None:
        self._left_at[bot_id] = time.monotonic()
        for pending in self._pending.values():
            if pending.bot_id == bot_id:
                pending.deadline_moved()

    # -- bots on other referees ----------------------------------------------------------------
    def connected_elsewhere(self, bot_id: int, referee: str, form: int) -> None:
        """The bot's stream is open on `referee` (a bot connected here stays here)."""
        if bot_id in self._sessions:
            return
        self._elsewhere[bot_id] = Elsewhere(referee, form)
        self._came_back(bot_id)

    def gone_elsewhere(self, bot_id: int, referee: str) -> None:
        """The bot's stream on `referee` ended (or that referee died): its grace starts now."""
        where = self._elsewhere.get(bot_id)
        if where is not None and where.referee == referee:
            del self._elsewhere[bot_id]
            self._went_away(bot_id)

    def where(self, bot_id: int) -> str | None:
        """The other referee the bot is connected to, if it is connected to one."""
        where = self._elsewhere.get(bot_id)
        return None if where is None else where.referee

    def bots_elsewhere(self) -> dict[int, str]:
        """Bot id -> the other referee it is connected to."""
        return {bot_id: where.referee for bot_id, where in self._elsewhere.items()}

    def disconnect(self, session: Session) -> None:
        """Forget a stream that ended; its bot's decisions wait out the reconnect grace."""
        session.close()
        if self._sessions.get(session.bot_id) is session:
            del self._sessions[session.bot_id]
            metrics.CONNECTED_BOTS.dec()
            self._went_away(session.bot_id)

    def session(self, bot_id: int) -> Session | None:
        """The bot's open stream, if any."""
        return self._sessions.get(bot_id)

    def sessions(self) -> list[Session]:
        """Every open stream."""
        return list(self._sessions.values())

    def form_of(self, bot_id: int) -> int:
        """The payload form the bot's open stream asked for (both when it is not connected)."""
        session = self._sessions.get(bot_id)
        if session is not None:
            return session.form
        where = self._elsewhere.get(bot_id)
        return bot_pb2.PAYLOAD_FORM_UNSPECIFIED if where is None else where.form

    def is_connected(self, bot_id: int) -> bool:
        """Whether the bot has an open stream, here or on another referee."""
        return bot_id in self._sessions or bot_id in self._elsewhere

    async def wait_connected(self, bot_ids: Sequence[int], timeout: timedelta) -> bool:
        """Wait until every bot of `bot_ids` is connected, at most `timeout`; whether they are."""
        until = time.monotonic() + timeout.total_seconds()
        while not all(self.is_connected(bot_id) for bot_id in bot_ids):
            if time.monotonic() >= until:
                return False
            await asyncio.sleep(0.05)
        return True

    def reconnect_deadline(self, bot_id: int) -> float | None:
        """When a disconnected bot's grace runs out; None if it is connected."""
        if self.is_connected(bot_id):
            return None
        left = self._left_at.get(bot_id)
        return None if left is None else left + self.reconnect_grace.total_seconds()

    def send(self, bot_id: int, message: bot_pb2.ArenaMessage) -> bool:
        """Send to the bot if it is connected, here or elsewhere; return whether it was (a
        Problem or MatchEnd that was not is kept and sent when the bot is known again)."""
        session = self._sessions.get(bot_id)
        if session is not None:
            session.send(message)
            return True
        where = self._elsewhere.get(bot_id)
        if where is None or self.remote_send is None:
            if message.WhichOneof("kind") in _KEPT_KINDS:
                kept = self._kept.setdefault(bot_id, deque(maxlen=KEPT_FOR_LATER))
                kept.append(message)
            return False
        self.remote_send(where.referee, bot_id, message)
        return True

    # -- pending decisions -----------------------------------------------------------------------
    def owe(self, pending: Pending) -> None:
        """Record that a seat owes an answer, and send the request if its bot is connected."""
        self._pending[(pending.match_id, pending.seat)] = pending
        pending.sent_at = time.monotonic()
        if not self.is_connected(pending.bot_id):
            # A bot that never connected gets the same grace as one that left, counted from now.
            self._left_at.setdefault(pending.bot_id, pending.sent_at)
        self.send(pending.bot_id, bot_pb2.ArenaMessage(decision=pending.request))

    def settle(self, pending: Pending) -> None:
        """Forget a pending decision (answered, defaulted or timed out)."""
        if self._pending.get((pending.match_id, pending.seat)) is pending:
            del self._pending[(pending.match_id, pending.seat)]

    def owed(self, match_id: int, seat: int) -> Pending | None:
        """What the seat owes in that match, if anything."""
        return self._pending.get((match_id, seat))
