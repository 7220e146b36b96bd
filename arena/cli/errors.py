"""How the `arena` command line reports failures: one line on stderr and an exit code per class.

Every subcommand runs through `run_command`, which turns what an ordinary mistake raises (a gRPC
status, a refused connection, a missing or malformed file, bad JSON, an engine's refusal) into

    arena: <what was wrong>; <what to do>

and an `ExitCode`. Nothing a user can cause prints a traceback; a bug in the arena still does,
since hiding it would help nobody.

    CliError            raised by commands with a message, a hint and an ExitCode
    grpc.RpcError       mapped by status code (GRPC_EXITS) with a hint per code
    OSError             a file that cannot be read or written, a refused connection, a port in use
    EmbeddedError       the embedded Postgres or Redis cannot start
    ValueError          bad JSON, bad values (EngineError and json.JSONDecodeError included)
    TimeoutError        something did not happen in time
"""

from __future__ import annotations

import argparse
import enum
import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import grpc

from arena.ops.home import default_address
from arena.sdk.addresses import AddressError, parse_addresses
from arena.sdk.tls import PLAINTEXT, ClientTls, TlsConfigError, diagnose
from arena.storage.embedded import EmbeddedError
from arena.storage.errors import StorageError
from engines import EngineError


class ExitCode(enum.IntEnum):
    """The exit status of `arena`, one per class of failure."""

    OK = 0
    FAILED = 1
    """The command ran and its answer is "no" (a replay mismatch, a match that did not finish)."""
    USAGE = 2
    """Bad arguments, files, JSON or values: fix the command line."""
    NOT_FOUND = 3
    """No such match, tournament, bot, game or file."""
    REFUSED = 4
    """The arena refused: wrong or missing admin or bot token, or a conflict (name taken)."""
    UNAVAILABLE = 5
    """Nothing answers at the address, the database is down or missing, or a call timed out."""
    INTERNAL = 6
    """The arena itself failed; its log says why."""
    INTERRUPTED = 130
    """Ctrl-C."""


class CliError(Exception):
    """A failure to report as one line: `arena: <message>; <hint>`."""

    def __init__(self, message: str, hint: str = "", code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code

    def line(self) -> str:
        """The line printed on stderr."""
        text = f"arena: {_one_line(self.message)}"
        return f"{text}; {_one_line(self.hint)}" if self.hint else text


GRPC_EXITS: dict[grpc.StatusCode, ExitCode] = {
    grpc.StatusCode.INVALID_ARGUMENT: ExitCode.USAGE,
    grpc.StatusCode.OUT_OF_RANGE: ExitCode.USAGE,
    grpc.StatusCode.NOT_FOUND: ExitCode.NOT_FOUND,
    grpc.StatusCode.UNAUTHENTICATED: ExitCode.REFUSED,
    grpc.StatusCode.PERMISSION_DENIED: ExitCode.REFUSED,
    grpc.StatusCode.ALREADY_EXISTS: ExitCode.REFUSED,
    grpc.StatusCode.FAILED_PRECONDITION: ExitCode.REFUSED,
    grpc.StatusCode.ABORTED: ExitCode.REFUSED,
    grpc.StatusCode.CANCELLED: ExitCode.UNAVAILABLE,
    grpc.StatusCode.UNAVAILABLE: ExitCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED: ExitCode.UNAVAILABLE,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ExitCode.UNAVAILABLE,
    grpc.StatusCode.UNKNOWN: ExitCode.INTERNAL,
    grpc.StatusCode.INTERNAL: ExitCode.INTERNAL,
    grpc.StatusCode.UNIMPLEMENTED: ExitCode.INTERNAL,
    grpc.StatusCode.DATA_LOSS: ExitCode.INTERNAL,
}

TOKEN_HINT = (
    "run `arena login NAME` with an account allowed to, or pass --admin-token (or set "
    "ARENA_ADMIN_TOKEN) to the token `arena up` wrote (it prints the token's file when it "
    "starts, and again when run a second time)"
)


NOT_FOUND_HINTS: tuple[tuple[str, str], ...] = (
    ("no tournament", "`arena tournament list` shows the tournaments and their ids"),
    ("no match", "match ids are printed by `arena match` and shown in the web pages' match lists"),
    (
        "unknown bot",
        "check the name (`arena leaderboard --game GAME` lists the rated bots) or register it "
        "with `arena bot register NAME`",
    ),
    ("no schedule", "`arena schedule list` shows the schedules and their ids"),
    ("no ladder", "start one with `arena ladder start --game GAME`"),
)
"""What to do about a NOT_FOUND answer, by how the referee's message begins."""


def _not_found_hint(details: str) -> str:
    for start, hint in NOT_FOUND_HINTS:
        if details.lower().startswith(start):
            return hint
    return "check the name or id"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _address(args: argparse.Namespace | None) -> str:
    given = getattr(args, "address", "") if args is not None else ""
    return str(given or default_address())


def _tls(args: argparse.Namespace | None) -> ClientTls:
    try:
        return ClientTls.of_args(args or argparse.Namespace())
    except TlsConfigError:  # the command itself reports it; this only explains a failed call
        return PLAINTEXT


def _first(address: str) -> str:
    try:
        return parse_addresses(address)[0]
    except AddressError:
        return address


def rpc_error(exc: grpc.RpcError, args: argparse.Namespace | None = None) -> CliError:
    """The CliError for a failed gRPC call."""
    code_of = getattr(exc, "code", None)
    details_of = getattr(exc, "details", None)
    code = code_of() if callable(code_of) else grpc.StatusCode.UNKNOWN
    details = str(details_of() or "") if callable(details_of) else str(exc)
    address = _address(args)
    exit_code = GRPC_EXITS.get(code, ExitCode.INTERNAL)
    problem = diagnose(code, details, _tls(args), _first(address))
    if problem is not None:
        return CliError(problem.message, problem.hint, exit_code)
    if code == grpc.StatusCode.UNAVAILABLE and (
        "failed to connect" in details.lower() or "connection refused" in details.lower()
    ):
        return CliError(
            f"nothing answers at {address}",
            "start the arena with `arena up`, or pass --address (or set ARENA_ADDRESS)",
            exit_code,
        )
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return CliError(f"the arena at {address} did not answer in time", "try again", exit_code)
    hints = {
        grpc.StatusCode.PERMISSION_DENIED: TOKEN_HINT,
        grpc.StatusCode.UNAUTHENTICATED: TOKEN_HINT,
        grpc.StatusCode.ALREADY_EXISTS: "choose another name",
        grpc.StatusCode.UNAVAILABLE: "try again; if it persists, check the arena's logs",
        grpc.StatusCode.RESOURCE_EXHAUSTED: "slow down and try again",
        grpc.StatusCode.INTERNAL: f"this is a bug in the arena at {address}; its log says more",
        grpc.StatusCode.UNKNOWN: f"this is a bug in the arena at {address}; its log says more",
        grpc.StatusCode.UNIMPLEMENTED: "the arena at that address is an older version",
        grpc.StatusCode.NOT_FOUND: _not_found_hint(details),
    }
    message = details or f"the call failed with {code.name}"
    if code == grpc.StatusCode.PERMISSION_DENIED:
        message = f"the arena at {address} refused: {message}"
    return CliError(message, hints.get(code, ""), exit_code)


def to_cli_error(exc: BaseException, args: argparse.Namespace | None = None) -> CliError | None:
    """The CliError for an exception a user's mistake or environment can cause, else None."""
    if isinstance(exc, CliError):
        return exc
    if isinstance(exc, grpc.RpcError):
        return rpc_error(exc, args)
    if isinstance(exc, FileNotFoundError):
        return CliError(
            f"no such file: {exc.filename}", "check the path and try again", ExitCode.NOT_FOUND
        )
    if isinstance(exc, IsADirectoryError | PermissionError | NotADirectoryError):
        return CliError(f"cannot use {exc.filename}: {exc.strerror}", code=ExitCode.USAGE)
    if isinstance(exc, ConnectionError):
        return CliError(str(exc) or type(exc).__name__, code=ExitCode.UNAVAILABLE)
    if isinstance(exc, TimeoutError):
        return CliError(str(exc) or "timed out", code=ExitCode.UNAVAILABLE)
    if isinstance(exc, OSError):  # e.g. a port already in use
        return CliError(str(exc) or type(exc).__name__, code=ExitCode.UNAVAILABLE)
    if isinstance(exc, EmbeddedError):
        return CliError(
            f"the embedded database could not start: {exc}",
            "set ARENA_DATABASE_URL, or ARENA_HOME to a folder you own",
            ExitCode.UNAVAILABLE,
        )
    if isinstance(exc, StorageError):
        return CliError(
            f"database: {exc}", "check ARENA_DATABASE_URL or `arena up`", ExitCode.UNAVAILABLE
        )
    if isinstance(exc, json.JSONDecodeError):
        return CliError(f"not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})")
    if isinstance(exc, UnicodeDecodeError):
        return CliError("not a text file (it does not decode as UTF-8)")
    if isinstance(exc, EngineError | ValueError | KeyError):
        return CliError(str(exc) or type(exc).__name__)
    return None


def run_command(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """Run a subcommand; report an expected failure as one line and return its exit code."""
    try:
        return int(func(args))
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except SystemExit as exc:  # commands written before CliError raise SystemExit("message")
        if isinstance(exc.code, str):
            print(CliError(exc.code.removeprefix("arena: ")).line(), file=sys.stderr)
            return ExitCode.USAGE
        return int(exc.code or 0)
    except Exception as exc:
        error = to_cli_error(exc, args)
        if error is None:
            raise
        print(error.line(), file=sys.stderr)
        return error.code


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line naming the command's --help."""

    def error(self, message: str) -> NoReturn:
        """Print `arena: <message>; see `<prog> --help`` and exit with ExitCode.USAGE."""
        print(CliError(message, f"see `{self.prog} --help`").line(), file=sys.stderr)
        raise SystemExit(ExitCode.USAGE)


def fail(message: str, hint: str = "", code: ExitCode = ExitCode.USAGE) -> NoReturn:
    """Raise a CliError (for use in expressions)."""
    raise CliError(message, hint, code)


def positive(kind: type[Any] = int, *, zero: bool = False) -> Callable[[str], Any]:
    """An argparse `type` accepting numbers > 0 (>= 0 with zero=True) of `kind`."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value < 0 or (value == 0 and not zero):
            raise argparse.ArgumentTypeError(
                f"{text} is not allowed: it must be {'0 or more' if zero else 'more than 0'}"
            )
        return value

    parse.__name__ = kind.__name__
    return parse
