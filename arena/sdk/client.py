"""The Python bot SDK: subclass `Bot`, implement `decide`, call `run(address, token)`.

    class MyBot(Bot):
        def decide(self, turn: Turn) -> Json:
            return turn.legal[0] if turn.legal else turn.choices()[0]

    MyBot().run("localhost:50051", token)

`decide` gets a `Turn` (sdk.bots.base): the seat's view and the legal actions in the game's JSON
wire forms, and returns one action in that form. The SDK keeps one stream open, answers with an
index when the action is listed (JSON otherwise), sends heartbeats, and reconnects when the stream
drops: to the next referee of a list ("a:1,b:2") within ~100 ms, then with backoff, so its seats
are back well within the arena's reconnect grace (arena.sdk.addresses says what `address` may
be; `self.matches` survives the switch and the referee re-sends what is pending). A wrong token
stops it with `BotRejected`; another process connecting with the same token takes the bot's
matches over and stops this one with `BotReplaced` (no reconnect, so two processes never kick
each other off in a loop). Give it a `BotReport` (arena.cli.bot_report) to print a line per
match, Problem and summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import timedelta
from typing import Any

import grpc
import orjson

from arena.cli.bot_report import BotReport
from arena.sdk.addresses import (
    Rotation,
    channel_options,
    parse_addresses,
)
from arena.sdk.bots.base import Strategy, Turn, strategy
from arena.v1 import bot_pb2, bot_pb2_grpc
from engines import HashRng, Json

log = logging.getLogger(__name__)

WELCOME_TIMEOUT = timedelta(seconds=10)
"""A stream that has not said Welcome by then is abandoned and opened again."""
FAILOVER_WELCOME_TIMEOUT = timedelta(seconds=3)
"""The same with several referees to try: a referee that has not answered by then (a host that
drops packets, say) is left for the next well within a reconnect grace."""


class BotRejected(Exception):
    """The arena refused the bot for good (e.g. a wrong token); retrying cannot help."""


class BotReplaced(BotRejected):
    """Another process connected with this bot's token and took its matches over."""


class NoWelcome(TimeoutError):
    """A referee accepted no stream, or said no Welcome, in time; another attempt follows."""


SILENT_AFTER = timedelta(seconds=3)
"""A referee that says nothing, not even the answer to a heartbeat, this long after one is
presumed frozen (paused, or its host cut off, while the connection stays open): the bot moves
to the next referee. gRPC keepalive pings did not notice a frozen referee here."""
FAILOVER_HEARTBEAT = timedelta(seconds=2)
"""With several referees to go to, a heartbeat at least this often, so that a frozen referee is
left within about 5 s, well inside the arena's reconnect grace."""


def _loads(text: str) -> Any:
    """`json.loads`, through orjson (several times faster on a view) when it can. orjson refuses
    NaN and malformed text, which json then reads or rejects with its own error; it reads an
    integer beyond 64 bits as a float, but the arena sends none (views, actions and templates
    are the engines' small integers)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def turn_of(request: bot_pb2.DecisionRequest, game: str, seats: int) -> Turn:
    """The `Turn` a strategy sees for a decision request."""
    legal = tuple(_loads(text) for text in request.legal_json) if request.legal_json else None
    space: Any = {"kind": "listed"}
    if legal is None:
        space = {
            "kind": "mixed",
            "actions": [_loads(text) for text in request.space.actions_json],
            "ranges": [
                {
                    "template": _loads(r.template_json),
                    "field": r.field,
                    "min": r.min,
                    "max": r.max,
                }
                for r in request.space.ranges
            ],
        }
    return Turn(
        game=game,
        seat=request.seat,
        seats=seats,
        decision=request.decision,
        label=request.label,
        view=_loads(request.view_json),
        legal=legal,
        space=space,
        match_id=request.match_id,
    )


async def heartbeats(
    outbox: asyncio.Queue[bot_pb2.BotMessage | None],
    every: timedelta,
    heard: Callable[[], float],
    silent: Callable[[], None],
) -> None:
    """Put a Heartbeat on the outbox every `every`, until cancelled; call `silent` (and stop)
    when nothing was heard (`heard()`: monotonic time of the last message) within
    `SILENT_AFTER` of one."""
    while True:
        await asyncio.sleep(every.total_seconds())
        beat = bot_pb2.BotMessage(heartbeat=bot_pb2.Heartbeat())
        beat.heartbeat.sent_at.GetCurrentTime()
        sent = time.monotonic()
        outbox.put_nowait(beat)
        await asyncio.sleep(SILENT_AFTER.total_seconds())
        if heard() < sent:
            silent()
            return


def action_for(request: bot_pb2.DecisionRequest, turn: Turn, choice: Json) -> bot_pb2.Action:
    """The Action message for a chosen wire action: an index when listed, else JSON."""
    action = bot_pb2.Action(match_id=request.match_id, decision=request.decision, seat=request.seat)
    if turn.legal is not None and choice in turn.legal:
        action.index = turn.legal.index(choice)
    else:
        action.json = json.dumps(choice)
    return action


class StreamWatch:
    """Why a bot's stream is being cancelled: no Welcome in time, or a referee gone silent."""

    def __init__(self) -> None:
        self.call: Any = None
        self.heard = time.monotonic()
        """When the referee last said anything (monotonic seconds)."""
        self.no_welcome = False
        self.frozen = False

    def give_up(self) -> None:
        self.no_welcome = True
        self.call.cancel()

    def silent(self) -> None:
        self.frozen = True
        self.call.cancel()


class Bot:
    """A bot process's brain and its connection to the arena. Override `decide`."""

    client = "arena-python-sdk"
    form: bot_pb2.PayloadForm.ValueType = bot_pb2.PAYLOAD_FORM_UNSPECIFIED
    """The forms of view and legal actions to ask for in Hello; `turn_of` reads the JSON form,
    so a bot that only uses `Turn` may set `bot_pb2.PAYLOAD_FORM_JSON` and spare the typed one."""

    def __init__(self) -> None:
        self.matches: dict[int, bot_pb2.MatchStart] = {}
        self.finished: list[bot_pb2.MatchEnd] = []
        self.problems: list[bot_pb2.Problem] = []
        self.bot_name = ""
        self.report: BotReport | None = None
        """Where readable progress lines go (`arena bot run` on a terminal), if anywhere."""
        self._stop = asyncio.Event()

    # -- override these --------------------------------------------------------------------------
    def decide(self, turn: Turn) -> Json:
        """Return an action (JSON wire form) for the turn."""
        raise NotImplementedError

    def on_match_start(self, start: bot_pb2.MatchStart) -> None:
        """Called when a match starts (and again after a reconnect)."""

    def on_match_end(self, end: bot_pb2.MatchEnd) -> None:
        """Called when a match ends."""

    def on_problem(self, problem: bot_pb2.Problem) -> None:
        """Called for every error or strike the arena reports (logged unless a report prints it)."""
        if self.report is None:
            log.warning("%s: match %s: %s", self.bot_name, problem.match_id, problem.message)

    # -- running ---------------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask `run` to return after closing the stream."""
        self._stop.set()

    def run(self, address: str | Sequence[str], token: str) -> None:
        """Play until stopped (Ctrl-C); reconnects on its own, to any of the addresses.

        `address` is one referee ("host:port"), several ("a:1,b:2" or a sequence), or a gRPC
        target such as "dns:///referees:50051" (balanced with round_robin). Raises AddressError
        (a ValueError) for a malformed list."""
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(self.run_async(address, token))

    async def run_async(self, address: str | Sequence[str], token: str) -> None:
        """The async form of `run`. A `stop()` made before it starts is honoured."""
        rotation = Rotation(parse_addresses(address))
        try:
            await self._run_until_stopped(rotation, token)
        finally:
            self._stop = asyncio.Event()  # ready for another run, in any event loop

    async def _run_until_stopped(self, rotation: Rotation, token: str) -> None:
        while not self._stop.is_set():
            address = rotation.current
            failure = "the stream ended"
            try:
                await self._session(rotation, token)
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.ABORTED:
                    raise BotReplaced(exc.details() or "replaced by another stream") from None
                if exc.code() in (
                    grpc.StatusCode.UNAUTHENTICATED,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    raise BotRejected(f"{exc.code().name}: {exc.details()}") from None
                failure = exc.code().name
            except NoWelcome as exc:
                failure = str(exc)
            if not self.bot_name and rotation.failures == 0:  # never connected: say so once
                log.warning(
                    "cannot reach the arena at %s (%s); retrying until it answers",
                    ",".join(rotation.addresses),
                    failure,
                )
            if self._stop.is_set():
                break
            # Whatever ended the stream, the next attempt goes to the next referee (the same
            # one when there is only one), soon: the seats wait only `reconnect_grace`.
            pause = rotation.failed()
            log.info(
                "stream to %s: %s; trying %s in %.1fs",
                address,
                failure,
                rotation.current,
                pause.total_seconds(),
            )
            stop_wait = asyncio.ensure_future(self._stop.wait())
            await asyncio.wait({stop_wait}, timeout=pause.total_seconds())
            stop_wait.cancel()

    async def _session(self, rotation: Rotation, token: str) -> None:
        address = rotation.current
        outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        outbox.put_nowait(
            bot_pb2.BotMessage(hello=bot_pb2.Hello(token=token, client=self.client, form=self.form))
        )

        async def outgoing() -> AsyncIterator[bot_pb2.BotMessage]:
            while (message := await outbox.get()) is not None:
                yield message

        # Another referee may answer when this one does not: wait less for a Welcome then.
        wait = WELCOME_TIMEOUT if len(rotation.addresses) == 1 else FAILOVER_WELCOME_TIMEOUT
        watch = StreamWatch()
        async with grpc.aio.insecure_channel(address, options=channel_options(address)) as channel:
            call = watch.call = bot_pb2_grpc.BotServiceStub(channel).Play(outgoing())
            stopper = asyncio.ensure_future(self._stop.wait())
            stopper.add_done_callback(lambda _: call.cancel())
            no_welcome = asyncio.get_running_loop().call_later(wait.total_seconds(), watch.give_up)
            heart: asyncio.Task[None] | None = None
            try:
                async for message in call:
                    watch.heard = time.monotonic()
                    kind = message.WhichOneof("kind")
                    if kind == "welcome":
                        no_welcome.cancel()
                        rotation.connected()
                        self.bot_name = message.welcome.bot_name
                        log.info("connected to %s as %s", address, self.bot_name)
                        if self.report is not None:
                            self.report.connected(
                                self.bot_name, address, message.welcome.active_matches
                            )
                        every = message.welcome.heartbeat_interval.ToTimedelta()
                        every = every or timedelta(seconds=10)
                        if len(rotation.addresses) > 1:
                            every = min(every, FAILOVER_HEARTBEAT)
                        heart = asyncio.create_task(
                            heartbeats(outbox, every, lambda: watch.heard, watch.silent)
                        )
                    elif kind == "match_start":
                        self.matches[message.match_start.match_id] = message.match_start
                        self.on_match_start(message.match_start)
                        if self.report is not None:
                            self.report.match_start(message.match_start)
                    elif kind == "decision":
                        asked = time.monotonic()
                        answer = await self._answer(message.decision)
                        if answer is not None:
                            outbox.put_nowait(bot_pb2.BotMessage(action=answer))
                            if self.report is not None:
                                self.report.answered(time.monotonic() - asked)
                    elif kind == "problem":
                        self.problems.append(message.problem)
                        self.on_problem(message.problem)
                        if self.report is not None:
                            self.report.problem(message.problem)
                    elif kind == "match_end":
                        self.finished.append(message.match_end)
                        self.matches.pop(message.match_end.match_id, None)
                        self.on_match_end(message.match_end)
                        if self.report is not None:
                            self.report.match_end(message.match_end)
            except (asyncio.CancelledError, grpc.aio.AioRpcError) as exc:
                # call.cancel() ends the read with CancelledError (or a CANCELLED status).
                cancelled = isinstance(exc, asyncio.CancelledError) or (
                    exc.code() == grpc.StatusCode.CANCELLED
                )
                if cancelled and watch.no_welcome and not self._stop.is_set():
                    raise NoWelcome(f"no Welcome within {wait.total_seconds():g}s") from None
                if cancelled and watch.frozen and not self._stop.is_set():
                    raise NoWelcome(
                        f"no answer to a heartbeat within {SILENT_AFTER.total_seconds():g}s"
                    ) from None
                if not cancelled or not self._stop.is_set():
                    raise
            finally:
                no_welcome.cancel()
                stopper.cancel()
                if heart is not None:
                    heart.cancel()
                outbox.put_nowait(None)

    async def _answer(self, request: bot_pb2.DecisionRequest) -> bot_pb2.Action | None:
        start = self.matches.get(request.match_id)
        game, seats = (start.game, start.seats) if start else ("", 0)
        turn = turn_of(request, game, seats)
        try:
            choice = await asyncio.to_thread(self.decide, turn)
        except Exception:  # the bot's own bug: keep the stream; the referee's clock decides
            log.exception(
                "decide() failed on match %s decision %s; not answering",
                request.match_id,
                request.decision,
            )
            return None
        return self.action_for(request, turn, choice)

    action_for = staticmethod(action_for)


class StrategyBot(Bot):
    """A bot that plays every game with a named reference strategy ("random" or "heuristic")."""

    def __init__(self, strategy_name: str, seed: int | None = None) -> None:
        super().__init__()
        self.strategy_name = strategy_name
        self.seed = secrets.randbits(62) if seed is None else seed
        self._strategies: dict[int, Strategy] = {}
        self.client = f"arena-python-sdk/{strategy_name}"
        # Strategies read only `Turn`, built from the JSON form: the typed one would be encoded
        # by the referee and decoded here for nothing.
        self.form = bot_pb2.PAYLOAD_FORM_JSON

    def on_match_start(self, start: bot_pb2.MatchStart) -> None:
        if start.match_id not in self._strategies:
            self._strategies[start.match_id] = strategy(start.game, self.strategy_name)

    def on_match_end(self, end: bot_pb2.MatchEnd) -> None:
        self._strategies.pop(end.match_id, None)

    def decide(self, turn: Turn) -> Json:
        brain = self._strategies.get(turn.match_id)
        if brain is None:  # a request before its MatchStart: should not happen, but play on
            brain = self._strategies[turn.match_id] = strategy(turn.game, self.strategy_name)
        rng = HashRng(self.seed, f"{turn.match_id}:{turn.seat}:{turn.decision}")
        return brain.decide(turn, rng)
