"""An account's API keys: create (shown once), list (never the secrets), revoke."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import grpc

from arena.referee import arguments
from arena.referee.account_forms import key_message
from arena.referee.guard import CALLER, Caller
from arena.referee.keys import key_hash, new_key
from arena.referee.owned_bots import check_name, storage
from arena.referee.rpc import Context, checked, fail
from arena.storage.accounts import Accounts
from arena.storage.errors import Conflict, StorageError
from arena.v1 import account_pb2

KEY_LIFE = (timedelta(minutes=1), timedelta(days=366))
"""The allowed range of a key's lifetime."""


class AccountKeys:
    """CreateKey, ListKeys and RevokeKey, on the caller's own account."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    @checked
    async def CreateKey(
        self, request: account_pb2.CreateKeyRequest, context: Context
    ) -> account_pb2.CreatedKey:
        """A new named key of the caller's account, shown once."""
        check_name("name", request.name)
        expires = None
        if request.HasField("expires_in"):
            expires = datetime.now(UTC) + arguments.duration(
                "expires_in", request.expires_in, KEY_LIFE
            )
        account_id = await account_id_of(context, "CreateKey")
        key = new_key()
        try:
            row = await self.accounts.create_key(account_id, request.name, key_hash(key), expires)
        except Conflict:
            await fail(
                context,
                "CreateKey",
                grpc.StatusCode.ALREADY_EXISTS,
                f"you already have a key named {request.name!r}; choose another name",
            )
        except StorageError as exc:
            await fail(context, "CreateKey", grpc.StatusCode.UNAVAILABLE, str(exc))
        return account_pb2.CreatedKey(key=key_message(row), secret=key, account=CALLER.get().name)

    async def ListKeys(
        self, request: account_pb2.ListKeysRequest, context: Context
    ) -> account_pb2.ListKeysResponse:
        """The caller's keys, without secrets."""
        account_id = await account_id_of(context, "ListKeys")
        rows = await storage(context, "ListKeys", self.accounts.keys(account_id))
        return account_pb2.ListKeysResponse(keys=[key_message(r) for r in rows])

    @checked
    async def RevokeKey(
        self, request: account_pb2.RevokeKeyRequest, context: Context
    ) -> account_pb2.ApiKey:
        """Revoke one of the caller's keys."""
        check_name("name", request.name)
        account_id = await account_id_of(context, "RevokeKey")
        row = await storage(
            context, "RevokeKey", self.accounts.revoke_key(account_id, request.name)
        )
        if row is None:
            await fail(
                context, "RevokeKey", grpc.StatusCode.NOT_FOUND, f"you have no key {request.name!r}"
            )
        return key_message(row)


async def account_id_of(context: Context, method: str) -> int:
    """The caller's account id, or the call ended with FAILED_PRECONDITION."""
    caller: Caller = CALLER.get()
    if caller.account_id is None:
        await fail(context, method, grpc.StatusCode.FAILED_PRECONDITION, "no account to act on")
    return caller.account_id
