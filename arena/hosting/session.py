"""One run of a hosted bot: its socket forwarded to a referee, its sandbox, its ending."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.hosting import forward
from arena.hosting.process import Ending, HostedProcess
from arena.hosting.runtime import Runtime
from arena.hosting.sandbox import SOCKET_NAME, SandboxSpec


class Session:
    """A hosted bot between start and end: `run()` returns how it ended, `stop()` ends it."""

    def __init__(
        self,
        spec: SandboxSpec,
        runtime: Runtime,
        bwrap: str,
        referee: str,
        connected: Callable[[], None] | None = None,
    ) -> None:
        self.spec = spec
        self.process = HostedProcess(spec, runtime, bwrap)
        self.referee = referee
        self.connected = connected
        """Called each time the bot's connection through the socket reaches the referee."""

    @property
    def socket_path(self) -> Path:
        """The host path of the bot's socket."""
        return self.spec.socket_dir / SOCKET_NAME

    async def run(self, cgroup_base: str = "arena-hosted") -> Ending:
        """Forward the bot's socket to the referee, run the bot to its end, close the socket."""
        host, _, port = self.referee.rpartition(":")
        server = await forward.serve(self.socket_path, host.strip("[]"), int(port), self.connected)
        try:
            await self.process.start(cgroup_base)
            return await self.process.wait()
        finally:
            server.close()
            self.socket_path.unlink(missing_ok=True)

    def stop(self) -> None:
        """End the bot (its run() then returns Ending STOPPED)."""
        self.process.stop()
