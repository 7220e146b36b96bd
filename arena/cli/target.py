"""Where a client command sends its calls: the referee's address and the admin credentials.

Every `arena` subcommand that talks to a referee takes `--address` and, for admin calls,
`--admin-token`; both fall back the same way everywhere, so they are defined once here.
"""

from __future__ import annotations

import argparse
import os

from arena.cli.errors import CliError, ExitCode
from arena.ops import home

ADDRESS_HELP = (
    "the referee's host:port (default: ARENA_ADDRESS, else the stack `arena up` runs in "
    "ARENA_HOME, else localhost:50051)"
)
ADMIN_TOKEN_HELP = (
    "the admin token (default: ARENA_ADMIN_TOKEN, else the admin-token file `arena up` wrote "
    "in ARENA_HOME)"
)


def address_of(args: argparse.Namespace) -> str:
    """The referee address: --address, ARENA_ADDRESS, the running stack's, or localhost:50051."""
    return str(getattr(args, "address", "") or home.default_address())


def admin_token(given: str | None) -> str:
    """The admin token: the flag, ARENA_ADMIN_TOKEN, or the file `arena up` wrote."""
    if given:
        return given
    if os.environ.get("ARENA_ADMIN_TOKEN"):
        return os.environ["ARENA_ADMIN_TOKEN"]
    path = home.data_dir() / "admin-token"
    if path.exists():
        return path.read_text().strip()
    raise CliError(
        f"no admin token (none given and no {path})",
        "pass --admin-token, set ARENA_ADMIN_TOKEN, or start the arena with `arena up` "
        "(it writes that file)",
        ExitCode.REFUSED,
    )


def admin_metadata(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """The gRPC metadata of an admin call: the bearer admin token."""
    return (("authorization", f"Bearer {admin_token(getattr(args, 'admin_token', ''))}"),)
