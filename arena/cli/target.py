"""Where a client command sends its calls: the referee's address and the admin credentials.

Every `arena` subcommand that talks to a referee takes `--address` and, for admin calls,
`--admin-token`; both fall back the same way everywhere, so they are defined once here.

`--address` may list several referees of one arena ("a:50051,b:50051") or be a gRPC target
("dns:///referees:50051"): `arena bot run` hands the list to the SDK, which fails over between
them; a one-shot command calls the first that accepts a connection.
"""

from __future__ import annotations

import argparse
import os
from datetime import timedelta

import grpc

from arena.cli.errors import CliError, ExitCode
from arena.ops import home
from arena.sdk.addresses import AddressError, channel_options, parse_addresses

ADDRESS_HELP = (
    "the referee's host:port, several referees of one arena as HOST:PORT,HOST:PORT, or a gRPC "
    "target such as dns:///NAME:PORT (default: ARENA_ADDRESS, else the stack `arena up` runs "
    "in ARENA_HOME, else localhost:50051)"
)
PROBE_TIMEOUT = timedelta(seconds=1)
"""How long a one-shot command waits for each referee of a list to accept a connection."""
ADMIN_TOKEN_HELP = (
    "the admin token (default: ARENA_ADMIN_TOKEN, else the admin-token file `arena up` wrote "
    "in ARENA_HOME)"
)


def addresses_of(args: argparse.Namespace) -> list[str]:
    """The referee addresses: --address, ARENA_ADDRESS, the running stack's, or localhost:50051,
    split at commas (a gRPC target with a scheme stays whole)."""
    given = str(getattr(args, "address", "") or home.default_address())
    try:
        return parse_addresses(given)
    except AddressError as exc:
        raise CliError(
            f"bad --address {given!r}: {exc}",
            "give HOST:PORT, or several as HOST:PORT,HOST:PORT (or set ARENA_ADDRESS so)",
        ) from None


def address_of(args: argparse.Namespace) -> str:
    """The one referee a one-shot command calls: the address, or of several the first that
    accepts a connection within PROBE_TIMEOUT (the first when none does, so the call's own
    error says nothing answers)."""
    addresses = addresses_of(args)
    if len(addresses) == 1:
        return addresses[0]
    return next((a for a in addresses if _accepts(a)), addresses[0])


def _accepts(address: str) -> bool:
    # A blocking probe, before the command's own (async) call: one second per dead referee.
    with grpc.insecure_channel(address, options=channel_options(address)) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=PROBE_TIMEOUT.total_seconds())
        except grpc.FutureTimeoutError:
            return False
    return True


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
