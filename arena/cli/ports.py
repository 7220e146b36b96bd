"""Whether a port a command is about to listen on is free, said in one line when it is not."""

from __future__ import annotations

from arena.cli.errors import CliError, ExitCode
from arena.ops.ports import is_free


def ensure_free(port: int, flag: str, what: str, host: str = "0.0.0.0") -> None:
    """Raise a one-line CliError naming `port`, what it was for and the option to change."""
    if port > 0 and not is_free(port, host):
        raise CliError(
            f"port {port} ({what}) is in use by another program (a running `arena up` "
            "listens on its own referee, web and metrics ports)",
            f"stop that program, or pass {flag} with a free port",
            ExitCode.UNAVAILABLE,
        )
