"""The door of every RPC: who the caller is, whether its permission rule lets it in, the audit.

`Guard` is a server interceptor. For each call of an arena.v1 service it finds the caller from
the `authorization: Bearer` metadata (nobody; the operator's admin token, which is the first admin
account's key; an account's API key; a bot token), applies the RPC's rule from
`permissions.RULES`, runs the RPC with the caller in `CALLER`, records what the caller now owns
and writes the audit entry. Streams pass through: their rules are ANYONE (WatchMatch) and BOT
(Play, whose Hello checks the token).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from arena.ops import metrics
from arena.referee.auth import bearer, same_token, token_hash
from arena.referee.keys import is_key, key_hash, same_digest
from arena.referee.limits import Rate, RateLimiter, Turns, peer_address
from arena.referee.permissions import GUARDED_SERVICES, RULES, SECRET_FIELDS, Field, Rule, Who
from arena.referee.rpc import Context, fail
from arena.storage.accounts import Accounts, Owned, Role
from arena.storage.db import Database
from arena.storage.errors import StorageError
from arena.versiontest import store as versiontests

log = logging.getLogger(__name__)

MAX_BEARER_CHARS = 128
"""The longest bearer token looked up (keys and tokens have 49-52 characters)."""


@dataclass(frozen=True, slots=True)
class Caller:
    """Who makes a call: nobody, a bot (by its token) or an account (by a key)."""

    name: str = ""
    account_id: int | None = None
    role: Role | None = None
    bot_id: int | None = None

    @property
    def is_account(self) -> bool:
        """Whether the call carries an account's key (or the admin token)."""
        return self.role is not None

    @property
    def is_admin(self) -> bool:
        """Whether the caller is an admin account."""
        return self.role is Role.ADMIN

    def describe(self) -> str:
        """How the audit log names the caller."""
        if self.bot_id is not None:
            return f"bot:{self.name}"
        return self.name or "anonymous"


ANONYMOUS = Caller()
CALLER: ContextVar[Caller] = ContextVar("arena_caller", default=ANONYMOUS)
"""The caller of the RPC being answered (set by `Guard` around each unary call)."""


class Refused(Exception):
    """A call the door turns away, with its status code."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code


Handler = Callable[[Any, Context], Awaitable[Any]]


class Guard(grpc.aio.ServerInterceptor):
    """Identify the caller, apply the RPC's permission rule, audit what changed."""

    def __init__(
        self,
        db: Database,
        admin_token: str,
        failures: Rate,
        delay: timedelta = timedelta(seconds=1),
    ) -> None:
        self.db = db
        self.accounts = Accounts(db.pool)
        self.admin_token = admin_token
        self.failures = RateLimiter(failures)
        """Wrong admin tokens and unknown keys per address, before checks go one at a time."""
        self.turns = Turns()
        self.delay = delay
        """How long a wrong key past that rate waits for its RESOURCE_EXHAUSTED."""
        self._admin: Caller | None = None

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(details)
        method = details.method
        if handler is None or method.split("/")[1] not in GUARDED_SERVICES:
            return handler
        rule = RULES.get(method)
        if handler.unary_unary is None:
            if rule is not None and rule.who in (Who.ANYONE, Who.BOT):
                return handler  # WatchMatch is public; Play checks its token in Hello
            return _refusing(handler, method, "this stream has no permission rule")
        # grpc.aio calls the handler with its own context (typed as the sync one by the stubs).
        inner: Handler = handler.unary_unary  # type: ignore[assignment]
        name = method.rsplit("/", 1)[1]

        async def guarded(request: Any, context: Context) -> Any:
            if rule is None:
                await fail(context, name, grpc.StatusCode.PERMISSION_DENIED, "no permission rule")
            try:
                caller = await self.identify(context, lenient=rule.who is Who.ANYONE)
                await self.check(rule, caller, name, request)
            except Refused as exc:
                await fail(context, name, exc.code, str(exc))
            except StorageError as exc:
                await fail(context, name, grpc.StatusCode.UNAVAILABLE, str(exc))
            reset = CALLER.set(caller)
            try:
                response = await inner(request, context)
            finally:
                CALLER.reset(reset)
            await self.after(rule, caller, name, request, response)
            return response

        return grpc.unary_unary_rpc_method_handler(
            guarded,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    async def identify(self, context: Context, lenient: bool = False) -> Caller:
        """The caller of `context`; an unknown token is `Refused` (or anonymous if `lenient`)."""
        token = bearer(tuple(context.invocation_metadata() or ()))
        if token is None:
            return ANONYMOUS
        if same_token(token, self.admin_token):
            return await self.admin()
        peer = peer_address(context.peer())
        if not self.failures.allows(peer):
            # Past the rate a right key still works: keys from the address are checked one at a
            # time, and a wrong one holds the address's turn for the delay before its refusal,
            # so guessing goes no faster than one key per delay, and nobody sharing the address
            # (a NAT, a host) is locked out by another's flood.
            async with self.turns.of(peer):
                found = await self._lookup(token) if len(token) <= MAX_BEARER_CHARS else None
                if found is not None:
                    return found
                await asyncio.sleep(self.delay.total_seconds())
            metrics.RATE_LIMITED.labels("admin").inc()
            if lenient:
                return ANONYMOUS
            raise Refused(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too many wrong admin tokens or unknown keys from your address; wait a few seconds",
            )
        found = await self._lookup(token) if len(token) <= MAX_BEARER_CHARS else None
        if found is not None:
            return found
        self.failures.take(peer)
        if lenient:
            return ANONYMOUS
        if is_key(token):
            raise Refused(
                grpc.StatusCode.UNAUTHENTICATED,
                "unknown, expired or revoked API key; get a new one with `arena login`",
            )
        raise Refused(
            grpc.StatusCode.PERMISSION_DENIED,
            "wrong admin token or unknown key: send an account's API key (`arena login`)",
        )

    async def _lookup(self, token: str) -> Caller | None:
        if is_key(token):
            digest = key_hash(token)
            row = await self.accounts.by_key(digest)
            if row is None or not same_digest(digest, row.secret_hash):
                return None
            return Caller(name=row.name, account_id=row.id, role=Role(row.role))
        bot = await self.db.bot_by_token_hash(token_hash(token))
        return None if bot is None else Caller(name=bot.name, bot_id=bot.id)

    async def admin(self) -> Caller:
        """The first admin account, which the operator's admin token stands for."""
        if self._admin is None:
            row = await self.accounts.first_admin()
            account_id = None if row is None else row.id
            name = "admin" if row is None else row.name
            self._admin = Caller(name=name, account_id=account_id, role=Role.ADMIN)
        return self._admin

    async def check(self, rule: Rule, caller: Caller, method: str, request: Any) -> None:
        """Refuse the call unless `caller` satisfies `rule` for `request`."""
        if rule.who in (Who.ANYONE, Who.BOT):
            return
        if caller.bot_id is not None:
            raise Refused(
                grpc.StatusCode.PERMISSION_DENIED,
                f"a bot token only plays; call {method} with its owner's API key",
            )
        if not caller.is_account:
            raise Refused(
                grpc.StatusCode.UNAUTHENTICATED,
                f"{method} needs {_NEEDS[rule.who]}: send `authorization: Bearer <key>` "
                "(`arena login` stores one; the operator's admin token is an admin key)",
            )
        if caller.is_admin:
            return
        if rule.who is Who.ADMIN or (rule.who is Who.ORGANISER and caller.role is Role.AUTHOR):
            raise Refused(
                grpc.StatusCode.PERMISSION_DENIED,
                f"{method} needs {_NEEDS[rule.who]}; {caller.name} is an {caller.role.value}"
                if caller.role
                else f"{method} needs {_NEEDS[rule.who]}",
            )
        if rule.organisers_own and caller.role is Role.ORGANISER:
            return
        for owns in rule.owned:
            await check_owner(self.db, self.accounts, owns, caller, request)

    async def after(
        self, rule: Rule, caller: Caller, method: str, request: Any, response: Any
    ) -> None:
        """Record what the caller now owns, and the audit entry (never failing the call)."""
        try:
            if rule.claims is not None and caller.account_id is not None:
                key = getattr(response, rule.claims.field)
                await self.accounts.claim(Owned(rule.claims.kind), key, caller.account_id)
            if rule.audit:
                await self.accounts.audit(
                    caller.account_id,
                    caller.describe(),
                    method,
                    _target(rule, request, response),
                    _details(request),
                )
        except StorageError as exc:
            log.error("%s by %s succeeded but was not recorded: %s", method, caller.name, exc)


async def check_owner(
    db: Database, accounts: Accounts, owns: Field, caller: Caller, request: Any
) -> None:
    """Refuse the call unless `caller` owns what `owns` names in `request` (or it is absent)."""
    value = getattr(request, owns.field)
    if not value:
        return
    if owns.kind == "versiontest":
        await _check_test_owner(db, caller, int(value))
        return
    if owns.kind == "entrant":  # NAME or NAME@LABEL: a version belongs to its bot's owner
        bot = await accounts.bot(str(value).partition("@")[0])
        if bot is not None and bot.owner_id != caller.account_id:
            raise Refused(
                grpc.StatusCode.PERMISSION_DENIED,
                f"{owns.field} {value!r}: bot {bot.name!r} belongs to another account; a "
                "version test needs the owner of both sides (or an organiser)",
            )
        return
    if owns.kind == "bot":
        bot = await accounts.bot(str(value))
        exists, owner = (bot is not None), (None if bot is None else bot.owner_id)
    else:
        exists, owner = await accounts.owner_of(Owned(owns.kind), value)
    if exists and owner != caller.account_id:
        raise Refused(
            grpc.StatusCode.PERMISSION_DENIED,
            f"{owns.kind} {value!r} belongs to another account; only its owner or an admin "
            "may change it",
        )


async def _check_test_owner(db: Database, caller: Caller, test_id: int) -> None:
    """A test is managed by whoever started it and by the owner of both its sides."""
    try:
        started_by, candidate, baseline = await versiontests.sides_owners(db, test_id)
    except LookupError:
        return  # the RPC answers NOT_FOUND
    me = caller.account_id
    if me is not None and (me == started_by or candidate == baseline == me):
        return
    raise Refused(
        grpc.StatusCode.PERMISSION_DENIED,
        f"version test {test_id} belongs to another account; only whoever started it, the "
        "owner of both its sides or an organiser may stop it",
    )


_NEEDS = {
    Who.ACCOUNT: "an account's API key",
    Who.ORGANISER: "the API key of an organiser or admin account",
    Who.ADMIN: "an admin account's key (or the admin token)",
}


def _target(rule: Rule, request: Any, response: Any) -> str:
    if rule.claims is not None:
        return f"{rule.claims.kind}:{getattr(response, rule.claims.field)}"
    where = rule.target or (rule.owned[0] if rule.owned else None)
    if where is None:
        return ""
    value = getattr(request, where.field)
    return f"{where.kind}:{value}" if value else ""


def _details(request: Message) -> dict[str, Any]:
    """The request as JSON, without its secret fields."""
    data = json_format.MessageToDict(request, preserving_proto_field_name=True)
    return {k: v for k, v in data.items() if k not in SECRET_FIELDS}


def _refusing(
    handler: grpc.RpcMethodHandler[Any, Any], method: str, message: str
) -> grpc.RpcMethodHandler[Any, Any]:
    """A handler that refuses every call (an RPC the permission table does not name)."""

    async def refuse(request: Any, context: Context) -> Any:
        await fail(context, method, grpc.StatusCode.PERMISSION_DENIED, message)

    return grpc.unary_unary_rpc_method_handler(
        refuse,
        request_deserializer=handler.request_deserializer,
        response_serializer=handler.response_serializer,
    )
