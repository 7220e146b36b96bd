"""Whether a port a command is about to listen on is free, said in one line when it is not."""

from __future__ import annotations

import socket

from arena.cli.errors import CliError, ExitCode


def is_free(port: int, host: str = "0.0.0.0") -> bool:
    """Whether a listening socket can be bound to `port` on `host` now."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        # SO_REUSEADDR: a port held only by connections in TIME_WAIT still counts as free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
        return True


def ensure_free(port: int, flag: str, what: str, host: str = "0.0.0.0") -> None:
    """Raise a one-line CliError naming `port`, what it was for and the option to change."""
    if port > 0 and not is_free(port, host):
        raise CliError(
            f"port {port} ({what}) is in use by another program (a running `arena up` "
            "listens on its own referee, web and metrics ports)",
            f"stop that program, or pass {flag} with a free port",
            ExitCode.UNAVAILABLE,
        )
