"""`arena account|login|logout|audit` and `arena bot rotate|retire|version`: accounts and keys.

`arena login` stores the key it receives in `$ARENA_HOME/credentials` (owner-only, mode 0600);
every later command that needs an account reads it from there (`target.account_key`).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import sys
from datetime import timedelta
from typing import Any

import grpc

from arena.cli.errors import CliError, ExitCode, positive
from arena.cli.target import account_metadata, add_target, credentials_path, open_channel
from arena.referee.auth import write_secret
from arena.v1 import account_pb2, account_pb2_grpc

ROLES = {
    "author": account_pb2.ROLE_AUTHOR,
    "organiser": account_pb2.ROLE_ORGANISER,
    "admin": account_pb2.ROLE_ADMIN,
}
ROLE_NAMES = {code: name for name, code in ROLES.items()}
KEY_HELP = "an account's API key (default: ARENA_API_KEY, else the key `arena login` stored)"


def _stub(
    args: argparse.Namespace,
) -> tuple[grpc.aio.Channel, account_pb2_grpc.AccountServiceAsyncStub]:
    channel = open_channel(args)
    return channel, account_pb2_grpc.AccountServiceStub(channel)


def _password(args: argparse.Namespace, prompt: str) -> str:
    """The password: one line of stdin with --password-stdin, else asked on the terminal."""
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    if not sys.stdin.isatty():
        raise CliError("no terminal to ask the password on", "pipe it in and pass --password-stdin")
    return getpass.getpass(prompt)


def _common(parser: argparse.ArgumentParser, key: bool = True) -> None:
    add_target(parser)
    if key:
        parser.add_argument("--key", default="", help=KEY_HELP)


async def _create(args: argparse.Namespace) -> int:
    password = _password(args, "password (empty: keys only): ") if args.password else ""
    request = account_pb2.CreateAccountRequest(
        name=args.name, password=password, role=ROLES[args.role]
    )
    # An admin's key, if there is one, may create organisers and admins.
    metadata = account_metadata(args, required=args.role != "author")
    channel, stub = _stub(args)
    async with channel:
        made = await stub.CreateAccount(request, metadata=metadata, timeout=30)
    print(f"created {args.role} account {made.account.name}")
    print(f"API key 'first' (shown once, keep it secret): {made.key.secret}")
    return 0


async def _login(args: argparse.Namespace) -> int:
    password = _password(args, f"password for {args.name}: ")
    request = account_pb2.LoginRequest(name=args.name, password=password, key_name=args.key_name)
    if args.days:
        request.expires_in.FromTimedelta(timedelta(days=args.days))
    channel, stub = _stub(args)
    async with channel:
        made = await stub.Login(request, timeout=30)
    path = credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = {"account": made.account, "key_name": made.key.name, "key": made.secret}
    write_secret(path, json.dumps(stored) + "\n")
    expires = made.key.expires_at.ToDatetime()
    print(
        f"logged in as {made.account}; key {made.key.name!r} (until {expires:%Y-%m-%d}) in {path}"
    )
    return 0


async def _logout(args: argparse.Namespace) -> int:
    path = credentials_path()
    if not path.exists():
        raise CliError("not logged in", "nothing to do", ExitCode.NOT_FOUND)
    stored = json.loads(path.read_text())
    channel, stub = _stub(args)
    async with channel:
        try:
            await stub.RevokeKey(
                account_pb2.RevokeKeyRequest(name=stored["key_name"]),
                metadata=(("authorization", f"Bearer {stored['key']}"),),
                timeout=30,
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.UNAUTHENTICATED:  # already revoked or expired
                raise
    path.unlink()
    print(f"logged out {stored['account']}: key {stored['key_name']!r} revoked and forgotten")
    return 0


async def _keys(args: argparse.Namespace) -> int:
    if args.action in ("create", "revoke"):
        _named(args)  # a missing name is reported before anything else
    metadata = account_metadata(args)
    channel, stub = _stub(args)
    async with channel:
        if args.action == "create":
            request = account_pb2.CreateKeyRequest(name=_named(args))
            if args.days:
                request.expires_in.FromTimedelta(timedelta(days=args.days))
            made = await stub.CreateKey(request, metadata=metadata, timeout=30)
            print(f"API key {made.key.name!r} (shown once, keep it secret): {made.secret}")
        elif args.action == "revoke":
            request_r = account_pb2.RevokeKeyRequest(name=_named(args))
            await stub.RevokeKey(request_r, metadata=metadata, timeout=30)
            print(f"revoked key {args.name!r}")
        else:
            listed = await stub.ListKeys(account_pb2.ListKeysRequest(), metadata=metadata)
            for key in listed.keys:
                print(_key_line(key))
    return 0


def _named(args: argparse.Namespace) -> str:
    if not args.name:
        raise CliError(f"`arena account keys {args.action}` needs a key name", "add NAME")
    return str(args.name)


def _key_line(key: account_pb2.ApiKey) -> str:
    state = "revoked" if key.HasField("revoked_at") else "live"
    until = f"until {key.expires_at.ToDatetime():%Y-%m-%d}" if key.HasField("expires_at") else ""
    used = (
        f"last used {key.last_used_at.ToDatetime():%Y-%m-%d %H:%M}"
        if key.HasField("last_used_at")
        else "never used"
    )
    return f"{key.name:<20} {state:<8} {until:<17} {used}"


async def _whoami(args: argparse.Namespace) -> int:
    metadata = account_metadata(args)
    channel, stub = _stub(args)
    async with channel:
        me = await stub.WhoAmI(account_pb2.WhoAmIRequest(), metadata=metadata, timeout=30)
    print(f"{me.name} ({ROLE_NAMES.get(me.role, '?')})")
    return 0


async def _role(args: argparse.Namespace) -> int:
    request = account_pb2.SetRoleRequest(name=args.name, role=ROLES[args.role])
    channel, stub = _stub(args)
    async with channel:
        await stub.SetRole(request, metadata=account_metadata(args), timeout=30)
    print(f"{args.name} is now an {args.role}")
    return 0


async def _audit(args: argparse.Namespace) -> int:
    request = account_pb2.ListAuditRequest(limit=args.limit)
    channel, stub = _stub(args)
    async with channel:
        listed = await stub.ListAudit(request, metadata=account_metadata(args), timeout=30)
    for e in listed.entries:
        when = e.created_at.ToDatetime()
        print(f"{e.id:>6} {when:%Y-%m-%d %H:%M:%S} {e.actor:<16} {e.action:<18} {e.target}")
    return 0


def add_commands(sub: Any) -> None:
    """Add `arena account`, `arena login`, `arena logout` and `arena audit`."""
    account = sub.add_parser("account", help="create an account, list and manage its keys")
    acc_sub = account.add_subparsers(dest="account_command", required=True)
    create = acc_sub.add_parser("create", help="create an account and print its first key")
    create.add_argument("name", help="1-64 letters, digits, '.', '_' or '-'")
    create.add_argument(
        "--role", choices=sorted(ROLES), default="author", help="admins only (default: author)"
    )
    create.add_argument("--password", action="store_true", help="set a password for login")
    create.add_argument("--password-stdin", action="store_true", help="read it from stdin")
    _common(create)
    create.set_defaults(func=lambda a: asyncio.run(_create(a)))
    keys = acc_sub.add_parser("keys", help="list, create or revoke your API keys")
    keys.add_argument(
        "action",
        nargs="?",
        choices=["list", "create", "revoke"],
        default="list",
        help="what to do (default: list)",
    )
    keys.add_argument("name", nargs="?", default="", help="the key's name (create, revoke)")
    keys.add_argument("--days", type=positive(), default=0, help="create: expire after N days")
    _common(keys)
    keys.set_defaults(func=lambda a: asyncio.run(_keys(a)))
    whoami = acc_sub.add_parser("whoami", help="the account of your key")
    _common(whoami)
    whoami.set_defaults(func=lambda a: asyncio.run(_whoami(a)))
    role = acc_sub.add_parser("role", help="change an account's role (admins only)")
    role.add_argument("name", help="the account's name")
    role.add_argument("role", choices=sorted(ROLES), help="its new role")
    _common(role)
    role.set_defaults(func=lambda a: asyncio.run(_role(a)))
    login = sub.add_parser("login", help="exchange name and password for a key kept in ARENA_HOME")
    login.add_argument("name", help="your account's name")
    login.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    login.add_argument("--key-name", default="", help="the key's name (default: login-<time>)")
    login.add_argument("--days", type=positive(), default=0, help="key lifetime (default: 30)")
    _common(login, key=False)
    login.set_defaults(func=lambda a: asyncio.run(_login(a)))
    logout = sub.add_parser("logout", help="revoke and forget the key `arena login` stored")
    _common(logout, key=False)
    logout.set_defaults(func=lambda a: asyncio.run(_logout(a)))
    audit = sub.add_parser("audit", help="the audit log (admins: everyone's; others: their own)")
    audit.add_argument("--limit", type=positive(), default=50, help="entries (default: 50)")
    _common(audit)
    audit.set_defaults(func=lambda a: asyncio.run(_audit(a)))
