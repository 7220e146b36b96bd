"""Keeps one hosted bot running on a runner: unpack, mint its token, run, restart with backoff."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from arena.hosting.archive import unpack
from arena.hosting.limits import ExitCause, Limits
from arena.hosting.output import LINES_KEPT, Line
from arena.hosting.runtime import Runtime
from arena.hosting.sandbox import SandboxSpec
from arena.hosting.session import Session
from arena.ops import metrics
from arena.referee.auth import new_token, token_hash
from arena.storage.accounts import Accounts
from arena.storage.hosted import Hosted
from arena.storage.pool import Pool
from arena.storage.runners import Launch, Runners

log = logging.getLogger(__name__)

FIRST_BACKOFF = timedelta(milliseconds=500)
"""The pause before restarting a bot that ended; it doubles per quick end up to MAX_BACKOFF."""
MAX_BACKOFF = timedelta(seconds=30)
"""The longest pause between restarts."""
STEADY = timedelta(seconds=60)
"""A run this long resets the backoff."""
LOG_LINES = 200
"""Lines of the owner's log kept per bot (its endings and the tail of its output)."""
UPLOAD_WINDOW = timedelta(minutes=10)
"""A version's first connection counts in upload-to-connected only this soon after its upload
(a version started days later, by a tournament or a takeover, says nothing about uploads)."""


@dataclass(frozen=True, slots=True)
class Placement:
    """Where and how a runner runs its bots."""

    referee: str
    """The referee's host:port the bots' sockets are forwarded to."""
    workdir: Path
    """The runner's own folder: unpacked archives and the bots' socket folders."""
    runtime: Runtime
    """The runtime bound into every sandbox."""
    bwrap: str
    """The bwrap binary."""
    limits: Limits = field(default_factory=Limits)
    """Every bot's limits."""
    cgroup_base: str = "arena-hosted"
    """The cgroup folder the bots' cgroups go under."""


@dataclass
class Counters:
    """What a runner's bots did, for its metrics and heartbeat."""

    restarts: int = 0
    kills: collections.Counter[str] = field(default_factory=collections.Counter)
    runner: str = ""
    """The runner's name: the `runner` label of its metrics."""


class Supervisor:
    """One hosted bot on this runner until `stop()`."""

    def __init__(self, bot_id: int, pool: Pool, placement: Placement, counters: Counters) -> None:
        self.bot_id = bot_id
        self.pool = pool
        self.placement = placement
        self.counters = counters
        self.log: collections.deque[str] = collections.deque(maxlen=LOG_LINES)
        self.lines: collections.deque[Line] = collections.deque(maxlen=LINES_KEPT)
        """The timed output lines of ended runs, each run closed by a line naming its end."""
        self.session: Session | None = None
        self.archive: str | None = None
        """The SHA-256 (hex) of the archive this bot runs or is about to unpack."""
        self._timed: set[str] = set()
        self._stopping = False
        self.task = asyncio.create_task(self._keep_running(), name=f"hosted-bot-{bot_id}")

    def stop(self) -> None:
        """Stop the bot and do not restart it."""
        self._stopping = True
        if self.session is not None:
            self.session.stop()
        else:  # between runs (unpacking, backing off): nothing to end but the task
            self.task.cancel()

    def lines_between(self, start: float, end: float) -> list[Line]:
        """The bot's output lines that arrived from `start` to `end` (`time.time()` values)."""
        current = [] if self.session is None else list(self.session.process.output.lines)
        return [line for line in [*self.lines, *current] if start <= line[0] <= end]

    async def _keep_running(self) -> None:
        backoff = FIRST_BACKOFF
        while not self._stopping:
            started = time.monotonic()
            try:
                await self._run_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a storage outage or a bad archive: say so, retry later
                self.log.append(f"could not start: {exc}")
                log.warning("hosted bot %s could not start: %s", self.bot_id, exc)
                metrics.RUNNER_ENDS.labels(self.counters.runner, "failed").inc()
                await self._note_stop("failed", f"could not start: {exc}")
            if self._stopping:
                return
            ran = timedelta(seconds=time.monotonic() - started)
            backoff = FIRST_BACKOFF if ran >= STEADY else min(backoff * 2, MAX_BACKOFF)
            self.counters.restarts += 1
            metrics.RUNNER_RESTARTS.labels(self.counters.runner).inc()
            await asyncio.sleep(backoff.total_seconds())

    async def _run_once(self) -> None:
        launch = await Runners(self.pool).launch(self.bot_id)
        if launch is None:
            raise LookupError("its playing version is not hosted")
        self.archive = launch.archive_sha256.hex()
        folder = await self._unpacked(launch.archive_sha256)
        sockets = self.placement.workdir / "sockets" / str(self.bot_id)
        sockets.mkdir(parents=True, exist_ok=True)
        token = new_token()
        await Accounts(self.pool).rotate_token(self.bot_id, token_hash(token))
        spec = SandboxSpec(folder, launch.run_command, sockets, token, self.placement.limits)
        place = self.placement
        connected = self._timer(launch)
        self.session = Session(spec, place.runtime, place.bwrap, place.referee, connected)
        if self._stopping:
            return
        metrics.RUNNER_STARTS.labels(self.counters.runner).inc()
        try:
            ending = await self.session.run(place.cgroup_base)
        finally:
            output = self.session.process.output.text()
            self.lines.extend(self.session.process.output.lines)
            self.session = None
        self.lines.append((time.time(), f"[arena] the bot's program {ending.describe()}"))
        self.log.append(f"{launch.name} {launch.label}: {ending.describe()}")
        self.log.extend(output.splitlines()[-20:])
        metrics.RUNNER_ENDS.labels(self.counters.runner, ending.cause.value).inc()
        if ending.cause not in (ExitCause.EXITED, ExitCause.STOPPED):
            self.counters.kills[ending.cause.value] += 1
        if ending.cause is not ExitCause.STOPPED:
            await self._note_stop(ending.cause.value, ending.describe())

    async def _note_stop(self, cause: str, detail: str) -> None:
        """Save why the bot ended for its owner; a storage outage only costs the note."""
        try:
            await Runners(self.pool).note_stop(self.bot_id, self.counters.runner, cause, detail)
        except Exception as exc:
            log.warning("could not save the stop of hosted bot %s: %s", self.bot_id, exc)

    def memory_bytes(self) -> int:
        """Memory the bot's sandbox uses now (0 between runs or without a cgroup)."""
        session = self.session
        cgroup = None if session is None else session.process.cgroup
        return 0 if cgroup is None else cgroup.memory_bytes()

    def _timer(self, launch: Launch) -> Callable[[], None] | None:
        """What observes upload-to-connected at the first connection of a fresh version, or None
        (the version was timed already here, or was uploaded longer than UPLOAD_WINDOW ago)."""
        version = launch.archive_sha256.hex() + launch.label
        if version in self._timed:
            return None
        if datetime.now(UTC) - launch.uploaded_at > UPLOAD_WINDOW:
            return None

        def connected() -> None:
            if version not in self._timed:
                self._timed.add(version)
                took = (datetime.now(UTC) - launch.uploaded_at).total_seconds()
                metrics.RUNNER_UPLOAD_TO_CONNECTED.labels(self.counters.runner).observe(took)

        return connected

    async def _unpacked(self, sha256: bytes) -> Path:
        """The archive's folder under the workdir, unpacked once per runner."""
        folder = self.placement.workdir / "archives" / sha256.hex()
        if folder.is_dir():
            return folder
        content = await Hosted(self.pool).archive(sha256)
        if content is None:
            raise LookupError("its archive is missing")
        staging = folder.with_name(folder.name + f".{self.bot_id}.tmp")
        staging.mkdir(parents=True, exist_ok=True)
        unpack(content, staging)
        with contextlib.suppress(OSError):
            staging.rename(folder)
        return folder
