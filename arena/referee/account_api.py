"""AccountService: accounts, their keys and passwords, their bots' tokens, versions and retirement.

Who may call each RPC is decided before it runs, by `guard.Guard` and `permissions.RULES`; these
methods read the caller from `guard.CALLER` only to act on its own account.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import NoReturn

import grpc

from arena.ops import metrics
from arena.referee import arguments
from arena.referee.account_forms import (
    ROLES,
    account_message,
    audit_message,
    key_message,
)
from arena.referee.account_keys import KEY_LIFE, AccountKeys, account_id_of
from arena.referee.app import Referee
from arena.referee.guard import CALLER
from arena.referee.hosted_uploads import HostedUploads
from arena.referee.keys import PASSWORD_CHARS, hash_password, key_hash, new_key, verify_password
from arena.referee.limits import RateLimiter, peer_address
from arena.referee.owned_bots import OwnedBots, check_name, storage
from arena.referee.rpc import Context, checked, fail
from arena.storage.accounts import Accounts, Role
from arena.storage.errors import Conflict, StorageError
from arena.v1 import account_pb2, account_pb2_grpc

LOGIN_KEY_LIFE = timedelta(days=30)
"""How long a key from Login lives unless the request says otherwise."""


class AccountService(account_pb2_grpc.AccountServiceServicer):
    """Accounts, keys, and what an account does to its own bots."""

    def __init__(self, referee: Referee, registrations: RateLimiter) -> None:
        self.referee = referee
        self.accounts = Accounts(referee.db.pool)
        self.registrations = registrations
        """Shared with RegisterBot: one per-address budget for creating bots and accounts."""
        self.failed_logins = RateLimiter(referee.config.limits.failed_logins)
        """Failed Logins per peer address and per account name."""
        self.bots = OwnedBots(referee)
        self.uploads = HostedUploads(self.bots)
        self.keys = AccountKeys(self.accounts)

    @checked
    async def CreateAccount(
        self, request: account_pb2.CreateAccountRequest, context: Context
    ) -> account_pb2.CreateAccountResponse:
        """A new account and its first key; admins choose its role."""
        caller = CALLER.get()
        check_name("name", request.name)
        if request.password:
            _password(request.password)
        role = ROLES.get(request.role, Role.AUTHOR) if request.role else Role.AUTHOR
        if request.role and request.role not in ROLES:
            raise arguments.InvalidArgument("role", f"unknown role {request.role}")
        if role is not Role.AUTHOR and not caller.is_admin:
            await _deny(context, "CreateAccount", "only an admin may create a non-author account")
        if not caller.is_admin:
            await self._may_register(context)
        hashed = (
            await asyncio.to_thread(hash_password, request.password) if request.password else None
        )
        try:
            row = await self.accounts.create(request.name, role, hashed)
            key = new_key()
            key_row = await self.accounts.create_key(row.id, "first", key_hash(key), None)
        except Conflict:
            await fail(
                context,
                "CreateAccount",
                grpc.StatusCode.ALREADY_EXISTS,
                f"an account named {request.name!r} already exists",
            )
        except StorageError as exc:
            await fail(context, "CreateAccount", grpc.StatusCode.UNAVAILABLE, str(exc))
        created = account_pb2.CreatedKey(key=key_message(key_row), secret=key, account=row.name)
        return account_pb2.CreateAccountResponse(account=account_message(row), key=created)

    async def _may_register(self, context: Context) -> None:
        if not self.referee.config.limits.open_registration:
            await _deny(
                context,
                "CreateAccount",
                "account creation is closed on this arena: ask its operator to create your account",
            )
        if not self.registrations.take(peer_address(context.peer())):
            metrics.RATE_LIMITED.labels("register").inc()
            await fail(
                context,
                "CreateAccount",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too many registrations from your address; wait a minute before trying again",
            )

    @checked
    async def Login(
        self, request: account_pb2.LoginRequest, context: Context
    ) -> account_pb2.CreatedKey:
        """A new key for a name and password; failures are rate limited."""
        check_name("name", request.name)
        arguments.text("password", request.password)
        life = LOGIN_KEY_LIFE
        if request.HasField("expires_in"):
            life = arguments.duration("expires_in", request.expires_in, KEY_LIFE)
        key_name = request.key_name or f"login-{int(time.time())}"
        check_name("key_name", key_name)
        peer = peer_address(context.peer())
        by_name = f"account:{request.name}"
        if not (self.failed_logins.allows(peer) and self.failed_logins.allows(by_name)):
            metrics.RATE_LIMITED.labels("login").inc()
            await fail(
                context,
                "Login",
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too many failed logins from your address or for this account; wait a minute",
            )
        try:
            row = await self.accounts.by_name(request.name)
            stored = None if row is None else row.password_hash
            if row is None or not await asyncio.to_thread(
                verify_password, stored, request.password
            ):
                self.failed_logins.take(peer)
                self.failed_logins.take(by_name)
                await fail(
                    context, "Login", grpc.StatusCode.UNAUTHENTICATED, "wrong name or password"
                )
            key = new_key()
            expires = datetime.now(UTC) + life
            key_row = await self.accounts.create_key(row.id, key_name, key_hash(key), expires)
        except Conflict:
            await fail(
                context,
                "Login",
                grpc.StatusCode.ALREADY_EXISTS,
                f"the account has a key named {key_name!r}; choose another key name",
            )
        except StorageError as exc:
            await fail(context, "Login", grpc.StatusCode.UNAVAILABLE, str(exc))
        return account_pb2.CreatedKey(key=key_message(key_row), secret=key, account=row.name)

    async def WhoAmI(
        self, request: account_pb2.WhoAmIRequest, context: Context
    ) -> account_pb2.Account:
        """The caller's account."""
        caller = CALLER.get()
        row = await storage(context, "WhoAmI", self.accounts.by_name(caller.name))
        if row is None:
            await fail(context, "WhoAmI", grpc.StatusCode.NOT_FOUND, "your account is gone")
        return account_message(row)

    async def CreateKey(
        self, request: account_pb2.CreateKeyRequest, context: Context
    ) -> account_pb2.CreatedKey:
        return await self.keys.CreateKey(request, context)

    async def ListKeys(
        self, request: account_pb2.ListKeysRequest, context: Context
    ) -> account_pb2.ListKeysResponse:
        return await self.keys.ListKeys(request, context)

    async def RevokeKey(
        self, request: account_pb2.RevokeKeyRequest, context: Context
    ) -> account_pb2.ApiKey:
        return await self.keys.RevokeKey(request, context)

    @checked
    async def SetRole(
        self, request: account_pb2.SetRoleRequest, context: Context
    ) -> account_pb2.Account:
        """Change an account's role (admins only, by the permission table)."""
        check_name("name", request.name)
        role = ROLES.get(request.role)
        if role is None:
            raise arguments.InvalidArgument("role", "must be admin, organiser or author")
        row = await storage(context, "SetRole", self.accounts.set_role(request.name, role))
        if row is None:
            await fail(
                context, "SetRole", grpc.StatusCode.NOT_FOUND, f"no account {request.name!r}"
            )
        return account_message(row)

    async def RotateBotToken(
        self, request: account_pb2.BotRef, context: Context
    ) -> account_pb2.RotatedToken:
        return await self.bots.RotateBotToken(request, context)

    async def RetireBot(
        self, request: account_pb2.BotRef, context: Context
    ) -> account_pb2.BotVersions:
        return await self.bots.RetireBot(request, context)

    async def CreateBotVersion(
        self, request: account_pb2.CreateBotVersionRequest, context: Context
    ) -> account_pb2.BotVersion:
        return await self.bots.CreateBotVersion(request, context)

    async def ListBotVersions(
        self, request: account_pb2.BotRef, context: Context
    ) -> account_pb2.BotVersions:
        return await self.bots.ListBotVersions(request, context)

    async def SetBotAlwaysOn(
        self, request: account_pb2.SetBotAlwaysOnRequest, context: Context
    ) -> account_pb2.BotVersions:
        return await self.bots.SetBotAlwaysOn(request, context)

    async def UploadArchivePart(
        self, request: account_pb2.ArchivePart, context: Context
    ) -> account_pb2.ArchivePartReceived:
        return await self.uploads.UploadArchivePart(request, context)

    async def UploadBotVersion(
        self, request: account_pb2.UploadBotVersionRequest, context: Context
    ) -> account_pb2.BotVersion:
        return await self.uploads.UploadBotVersion(request, context)

    @checked
    async def ListAudit(
        self, request: account_pb2.ListAuditRequest, context: Context
    ) -> account_pb2.ListAuditResponse:
        """The audit log: all of it for admins, one's own entries for others."""
        limit = arguments.limit("limit", request.limit, 50, 500)
        before_id = request.before_id
        before = arguments.positive_id("before_id", before_id) if before_id else None
        caller = CALLER.get()
        whose = None if caller.is_admin else await account_id_of(context, "ListAudit")
        rows = await storage(context, "ListAudit", self.accounts.audit_log(whose, limit, before))
        return account_pb2.ListAuditResponse(entries=[audit_message(r) for r in rows])


async def _deny(context: Context, method: str, message: str) -> NoReturn:
    await fail(context, method, grpc.StatusCode.PERMISSION_DENIED, message)


def _password(value: str) -> str:
    low, high = PASSWORD_CHARS
    if not low <= len(value) <= high:
        raise arguments.InvalidArgument("password", f"must be {low}-{high} characters long")
    return value
