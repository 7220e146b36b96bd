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
be; `self.matches` survives the switch and the referee re-sends what is pending). Told by a
MatchHost that a new match is hosted on another referee, it moves its stream there when all its
unfinished matches are hosted there (`follow_host`), so no referee relays them. A wrong token
stops it with `BotRejected`; another process connecting with the same token takes the bot's
matches over and stops this one with `BotReplaced` (no reconnect, so two processes never kick
each other off in a loop). Over TLS: `run(address, token, ClientTls(enabled=True, ca=...))`, or
ARENA_TLS=1 / ARENA_TLS_CA=FILE in the environment (arena.sdk.tls); a TLS mismatch that no
referee of the list gets past before the first Welcome (an untrusted certificate, TLS on one
side only) stops it with `TlsMismatch`, since retrying cannot help. Give it a `BotReport`
(arena.cli.bot_report) to print a line per match, Problem and summary.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

import grpc

from arena.sdk.addresses import (
    Rotation,
    channel_options,
    parse_addresses,
)
from arena.sdk.bots.base import Strategy, Turn, strategy, strategy_names
from arena.sdk.stream import (
    Following,
    Moved,
    NoWelcome,
    StreamWatch,
    heartbeat_every,
    heartbeats,
    until_none,
    wait_for_event,
)
from arena.sdk.tls import ClientTls, TlsProblem, diagnose
from arena.sdk.turns import action_for, turn_of
from arena.v1 import bot_pb2, bot_pb2_grpc
from engines import HashRng, Json

if TYPE_CHECKING:  # the slim SDK distribution has no arena.cli; `arena bot run` passes one
    from arena.cli.bot_report import BotReport

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


class TlsMismatch(BotRejected):
    """Every referee failed the TLS handshake before this run's first Welcome (an untrusted
    certificate, TLS on one side only, a missing client certificate); `problem` says which."""

    def __init__(self, problem: TlsProblem) -> None:
        super().__init__(problem.line())
        self.problem = problem


def refusal(exc: grpc.aio.AioRpcError) -> BotRejected | None:
    """The error that ends a run for good, for a status no retry can change; else None."""
    if exc.code() == grpc.StatusCode.ABORTED:
        return BotReplaced(exc.details() or "replaced by another stream")
    if exc.code() in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.INVALID_ARGUMENT):
        return BotRejected(f"{exc.code().name}: {exc.details()}")
    return None


async def tls_problem(exc: grpc.aio.AioRpcError, tls: ClientTls, address: str) -> TlsProblem | None:
    """What a failed stream says about TLS (`diagnose`, whose probe blocks: in a thread)."""
    return await asyncio.to_thread(diagnose, exc.code(), exc.details() or "", tls, address)


class Bot:
    """A bot process's brain and its connection to the arena. Override `decide`."""

    client = "arena-python-sdk"
    form: bot_pb2.PayloadForm.ValueType = bot_pb2.PAYLOAD_FORM_UNSPECIFIED
    """The forms of view and legal actions to ask for in Hello; `turn_of` reads the JSON form,
    so a bot that only uses `Turn` may set `bot_pb2.PAYLOAD_FORM_JSON` and spare the typed one."""
    follow_host = True
    """Move the stream to the referee hosting a new match when told (`stream.Following`)."""

    def __init__(self) -> None:
        self.matches: dict[int, bot_pb2.MatchStart] = {}
        self.finished: list[bot_pb2.MatchEnd] = []
        self.problems: list[bot_pb2.Problem] = []
        self.bot_name = ""
        self.following = Following()
        self.tls = ClientTls()
        """How `run` reaches the referees (set by `run`)."""
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

    def run(self, address: str | Sequence[str], token: str, tls: ClientTls | None = None) -> None:
        """Play until stopped (Ctrl-C); reconnects on its own, to any of the addresses.

        `address` is one referee ("host:port"), several ("a:1,b:2" or a sequence), or a gRPC
        target such as "dns:///referees:50051" (balanced with round_robin). `tls` defaults to
        the ARENA_TLS* environment (plaintext when unset). Raises AddressError (a ValueError)
        for a malformed list, TlsConfigError (a ValueError) for an unreadable TLS file."""
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(self.run_async(address, token, tls))

    async def run_async(
        self, address: str | Sequence[str], token: str, tls: ClientTls | None = None
    ) -> None:
        """The async form of `run`. A `stop()` made before it starts is honoured."""
        rotation = Rotation(parse_addresses(address))
        self.tls = ClientTls.from_env() if tls is None else tls
        if self.tls.enabled:
            self.tls.credentials()  # an unreadable file fails now, not on every attempt
        if not self._stop.is_set():  # Python 3.9's Event binds to the loop it is made in
            self._stop = asyncio.Event()
        try:
            await self._run_until_stopped(rotation, token)
        finally:
            self._stop = asyncio.Event()  # ready for another run, in any event loop

    async def _run_until_stopped(self, rotation: Rotation, token: str) -> None:
        tls_failures = 0  # in a row, before the first Welcome
        while not self._stop.is_set():
            address = rotation.current
            failure = "the stream ended"
            problem: TlsProblem | None = None
            try:
                await self._session(rotation, token)
            except grpc.aio.AioRpcError as exc:
                if (refused := refusal(exc)) is not None:
                    raise refused from None
                failure = exc.code().name
                if not self.bot_name:  # a handshake that never worked: is it TLS?
                    problem = await tls_problem(exc, self.tls, address)
            except NoWelcome as exc:
                failure = str(exc)
            except Moved as moved:  # at once, and no failure: the match waits for the bot
                log.info("%s: moving to %s, which hosts its matches", self.bot_name, moved.address)
                rotation.move(moved.address)
                continue
            tls_failures = tls_failures + 1 if problem is not None else 0
            if problem is not None and tls_failures >= len(rotation.addresses):
                raise TlsMismatch(problem)
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
            then = (rotation.current, pause.total_seconds())
            log.info("stream to %s: %s; trying %s in %.1fs", address, failure, *then)
            await wait_for_event(self._stop, pause)

    async def _session(self, rotation: Rotation, token: str) -> None:
        address = rotation.current
        outbox: asyncio.Queue[bot_pb2.BotMessage | None] = asyncio.Queue()
        hello = bot_pb2.Hello(token=token, client=self.client, form=self.form)
        hello.follow_host = self.follow_host
        outbox.put_nowait(bot_pb2.BotMessage(hello=hello))

        # Another referee may answer when this one does not: wait less for a Welcome then.
        wait = WELCOME_TIMEOUT if len(rotation.addresses) == 1 else FAILOVER_WELCOME_TIMEOUT
        watch = StreamWatch()
        async with self.tls.aio_channel(address, options=channel_options(address)) as channel:
            call = watch.call = bot_pb2_grpc.BotServiceStub(channel).Play(until_none(outbox))
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
                        self.following.referee = message.welcome.referee
                        log.info("connected to %s as %s", address, self.bot_name)
                        if self.report is not None:
                            self.report.connected(
                                self.bot_name, address, message.welcome.active_matches
                            )
                        every = heartbeat_every(message.welcome, len(rotation.addresses))
                        heart = asyncio.create_task(
                            heartbeats(outbox, every, watch.last_heard, watch.silent)
                        )
                    elif kind == "match_start":
                        self.matches[message.match_start.match_id] = message.match_start
                        self.on_match_start(message.match_start)
                        if self.report is not None:
                            self.report.match_start(message.match_start)
                    elif kind == "decision":
                        asked = time.monotonic()
                        with watch.decision():
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
                    elif kind == "match_host" and self.follow_host:
                        watch.move(self.following.move_to(message.match_host, self.matches))
                    elif kind == "match_end":
                        self.finished.append(message.match_end)
                        self.matches.pop(message.match_end.match_id, None)
                        self.following.hosts.pop(message.match_end.match_id, None)
                        self.on_match_end(message.match_end)
                        if self.report is not None:
                            self.report.match_end(message.match_end)
            except (asyncio.CancelledError, grpc.aio.AioRpcError) as exc:
                # call.cancel() ends the read with CancelledError (or a CANCELLED status).
                cancelled = isinstance(exc, asyncio.CancelledError) or (
                    exc.code() == grpc.StatusCode.CANCELLED
                )
                if cancelled and not self._stop.is_set():
                    watch.raise_why(wait)  # NoWelcome or Moved, if the watch cancelled it
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
    """A bot that plays every game with a named reference strategy ("random", "heuristic",
    "mcts" or "cfr"), random where a game has no strategy of that name."""

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
            self._strategies[start.match_id] = self._brain(start.game)

    def _brain(self, game: str) -> Strategy:
        """The named strategy for `game`, or random where the game has none of that name."""
        if self.strategy_name in strategy_names(game):
            return strategy(game, self.strategy_name)
        log.info("%s has no %s strategy: playing random", game, self.strategy_name)
        return strategy(game, "random")

    def on_match_end(self, end: bot_pb2.MatchEnd) -> None:
        self._strategies.pop(end.match_id, None)

    def decide(self, turn: Turn) -> Json:
        brain = self._strategies.get(turn.match_id)
        if brain is None:  # a request before its MatchStart: should not happen, but play on
            brain = self._strategies[turn.match_id] = self._brain(turn.game)
        rng = HashRng(self.seed, f"{turn.match_id}:{turn.seat}:{turn.decision}")
        return brain.decide(turn, rng)
