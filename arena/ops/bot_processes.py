"""Reference bots as child processes (`arena bot run`), one each: what `arena demo` plays with."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from arena.ops.stack import signal_group
from arena.sdk.tls import PLAINTEXT, ClientTls


@dataclass
class BotProcesses:
    """Reference bots, one process each."""

    address: str
    tls: ClientTls = PLAINTEXT
    """How the bots reach the referee (given to them as ARENA_TLS* variables)."""
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path | None] = field(default_factory=list)

    def start(self, token: str, strategy: str, log_file: Path | None = None) -> None:
        """Start one `arena bot run` process."""
        with contextlib.ExitStack() as files:
            output = files.enter_context(log_file.open("ab")) if log_file else subprocess.DEVNULL
            self.processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "arena.cli.main",
                        "bot",
                        "run",
                        "--strategy",
                        strategy,
                        "--address",
                        self.address,
                    ],
                    # The token goes by environment, which only its owner can read, never argv.
                    env={**os.environ, "ARENA_BOT_TOKEN": token, **self.tls.environ()},
                    stdout=output,
                    stderr=output,
                    start_new_session=True,
                )
            )
            self.logs.append(log_file)

    def report(self) -> str:
        """Which bot processes have exited, and the end of every bot's log."""
        lines = []
        for process, log_file in zip(self.processes, self.logs, strict=True):
            state = "running" if process.poll() is None else f"exited {process.returncode}"
            tail = log_file.read_text()[-400:].strip() if log_file and log_file.exists() else ""
            lines.append(f"  bot pid {process.pid} {state}: {tail or '(no output)'}")
        return "\n".join(lines)

    def stop(self) -> None:
        """Stop every bot process."""
        for process in self.processes:
            signal_group(process, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                signal_group(process, signal.SIGKILL)
                process.wait(timeout=5)
        self.processes.clear()
        self.logs.clear()
