"""Where a client command sends its calls: the referee's address and the admin credentials.

Every `arena` subcommand that talks to a referee takes `--address` and, for admin calls,
`--admin-token`; both fall back the same way everywhere, so they are defined once here.

`--address` may list several referees of one arena ("a:50051,b:50051") or be a gRPC target
("dns:///referees:50051"): `arena bot run` hands the list to the SDK, which fails over between
them; a one-shot command calls the first that accepts a connection.

The same commands take --tls, --tls-ca, --tls-client-cert and --tls-client-key (arena.sdk.tls),
each defaulting to its ARENA_TLS* variable; `open_channel` opens the command's channel with them.
"""

from __future__ import annotations

import argparse
import json
import os
from datetime import timedelta
from pathlib import Path

import grpc

from arena.cli.errors import CliError, ExitCode
from arena.ops import home
from arena.sdk.addresses import AddressError, channel_options, parse_addresses
from arena.sdk.tls import ClientTls, TlsConfigError, add_client_arguments

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


def add_target(parser: argparse.ArgumentParser, address_help: str = ADDRESS_HELP) -> None:
    """Add --address and the TLS flags of a command that calls a referee."""
    parser.add_argument("--address", default="", help=address_help)
    add_client_arguments(parser)


def client_tls(args: argparse.Namespace) -> ClientTls:
    """The command's TLS settings: its flags, else the ARENA_TLS* variables."""
    try:
        return ClientTls.of_args(args)
    except TlsConfigError as exc:
        raise CliError(str(exc), "see the command's --help, or docs/operations.md (TLS)") from None


def open_channel(args: argparse.Namespace, address: str = "") -> grpc.aio.Channel:
    """A channel to `address` (default: `address_of(args)`) with the command's TLS settings.
    Raises TlsConfigError (one line, a ValueError) for a TLS file that cannot be read."""
    return client_tls(args).aio_channel(address or address_of(args))


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
    return next((a for a in addresses if _accepts(args, a)), addresses[0])


def _accepts(args: argparse.Namespace, address: str) -> bool:
    # A blocking probe, before the command's own (async) call: one second per dead referee.
    tls = client_tls(args)
    with tls.channel(address, options=channel_options(address)) as probe:
        try:
            grpc.channel_ready_future(probe).result(timeout=PROBE_TIMEOUT.total_seconds())
        except grpc.FutureTimeoutError:
            return False
    return True


def credentials_path() -> Path:
    """Where `arena login` keeps its key: `$ARENA_HOME/credentials` (mode 0600)."""
    return home.data_dir() / "credentials"


def stored_key() -> str | None:
    """The key `arena login` stored, if any."""
    path = credentials_path()
    if not path.exists():
        return None
    try:
        return str(json.loads(path.read_text())["key"])
    except (ValueError, KeyError, TypeError):
        raise CliError(
            f"{path} is not a credentials file",
            "run `arena logout` or delete it, then `arena login NAME`",
        ) from None


def account_metadata(
    args: argparse.Namespace, required: bool = True
) -> tuple[tuple[str, str], ...] | None:
    """The metadata of a call made as an account: --key, ARENA_API_KEY, the stored login, or
    the admin token; None when there is none and it is not `required`."""
    key = getattr(args, "key", "") or os.environ.get("ARENA_API_KEY") or stored_key()
    if not key:
        try:
            key = admin_token("")
        except CliError:
            if not required:
                return None
            raise CliError(
                "not logged in",
                "run `arena login NAME` (or pass --key, or set ARENA_API_KEY)",
                ExitCode.REFUSED,
            ) from None
    return (("authorization", f"Bearer {key}"),)


def admin_token(given: str | None) -> str:
    """The admin token or an organiser's key: the flag, ARENA_ADMIN_TOKEN, the key `arena login`
    stored, or the admin-token file `arena up` wrote."""
    if given:
        return given
    if os.environ.get("ARENA_ADMIN_TOKEN"):
        return os.environ["ARENA_ADMIN_TOKEN"]
    key = stored_key()
    if key:
        return key
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
