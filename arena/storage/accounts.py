"""Account rows: accounts and roles, API keys, bot ownership and versions, owners, the audit log.

Secrets never reach this module in the clear: keys and bot tokens arrive as SHA-256 digests,
passwords as argon2id hashes (`arena.referee.keys` makes both).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg.rows import class_row
from psycopg.types.json import Jsonb

from arena.storage.pool import Pool
from arena.storage.sql import query


class Role(enum.Enum):
    """What an account may do (Postgres enum `account_role`)."""

    ADMIN = "admin"
    ORGANISER = "organiser"
    AUTHOR = "author"


@dataclass(frozen=True, slots=True)
class AccountRow:
    """An account; `password_hash` is an argon2id PHC string, or None for keys only."""

    id: int
    name: str
    role: str
    password_hash: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class KeyOwner:
    """The account a live key belongs to, with the key's stored digest."""

    id: int
    name: str
    role: str
    secret_hash: bytes


@dataclass(frozen=True, slots=True)
class KeyRow:
    """One API key, without its secret."""

    id: int
    account_id: int
    name: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class BotOwnership:
    """A bot with its owner (`owner_id` None: registered without an account)."""

    id: int
    name: str
    owner_id: int | None
    owner: str
    retired_at: datetime | None
    always_on: bool = False
    """Kept running on the runners with no competition needing it."""
    runner: str = ""
    """The runner running it now (a live lease), or ""."""
    stop_cause: str | None = None
    """Why its program last ended other than by its runner's stop (hosted_stops), or None."""
    stop_detail: str | None = None
    """That end as the owner's log says it."""
    stop_runner: str | None = None
    stopped_at: datetime | None = None
    stops: int = 0
    """Such ends so far."""


@dataclass(frozen=True, slots=True)
class VersionRow:
    """One version of a bot, with the matches it played."""

    id: int
    bot_id: int
    label: str
    notes: str
    provisional: bool
    created_at: datetime
    matches: int
    archive_sha256: bytes | None = None
    """A hosted version's archive (None: the author runs the bot)."""
    run_command: str | None = None
    """A hosted version's command."""
    archive_bytes: int | None = None
    """A hosted version's archive size."""


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One audited change."""

    id: int
    account_id: int | None
    actor: str
    action: str
    target: str
    details: dict[str, Any]
    created_at: datetime


class Owned(enum.Enum):
    """The things an account may own besides bots, each with its owner query."""

    TOURNAMENT = "tournament"
    SCHEDULE = "schedule"
    LADDER = "ladder"


class Accounts:
    """The account queries over one pool."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    async def create(self, name: str, role: Role, password_hash: str | None) -> AccountRow:
        """A new account; a taken name raises `Conflict`."""
        params = {"name": name, "role": role.value, "password_hash": password_hash}
        row = await self.pool.one(
            f"create account {name!r}", query("create_account"), params, class_row(AccountRow)
        )
        assert row is not None
        return row

    async def by_name(self, name: str) -> AccountRow | None:
        """The account called `name`, if any."""
        return await self.pool.one(
            f"find account {name!r}", query("account_by_name"), {"name": name}, _ACCOUNT
        )

    async def first_admin(self) -> AccountRow | None:
        """The oldest admin account: the one ARENA_ADMIN_TOKEN stands for."""
        return await self.pool.one("find the first admin", query("first_admin"), {}, _ACCOUNT)

    async def set_role(self, name: str, role: Role) -> AccountRow | None:
        """Change an account's role; None if there is no such account."""
        params = {"name": name, "role": role.value}
        return await self.pool.one(
            f"set the role of {name!r}", query("set_account_role"), params, _ACCOUNT
        )

    async def create_key(
        self, account_id: int, name: str, secret_hash: bytes, expires_at: datetime | None
    ) -> KeyRow:
        """Store a new key's digest; a name the account already uses raises `Conflict`."""
        params = {
            "account_id": account_id,
            "name": name,
            "secret_hash": secret_hash,
            "expires_at": expires_at,
        }
        row = await self.pool.one(f"create key {name!r}", query("create_api_key"), params, _KEY)
        assert row is not None
        return row

    async def by_key(self, secret_hash: bytes) -> KeyOwner | None:
        """The account of the live key with this digest (marking it used), if any."""
        return await self.pool.one(
            "check an API key",
            query("account_by_key"),
            {"secret_hash": secret_hash},
            class_row(KeyOwner),
        )

    async def keys(self, account_id: int) -> list[KeyRow]:
        """An account's keys, oldest first."""
        return await self.pool.all(
            "list keys", query("list_api_keys"), {"account_id": account_id}, _KEY
        )

    async def revoke_key(self, account_id: int, name: str) -> KeyRow | None:
        """Revoke one of an account's keys; None if it has no key of that name."""
        params = {"account_id": account_id, "name": name}
        return await self.pool.one(f"revoke key {name!r}", query("revoke_api_key"), params, _KEY)

    async def revoke_key_by_hash(self, secret_hash: bytes) -> None:
        """Revoke the key with this digest (a web session signing out)."""
        async with self.pool.connection("revoke a session key") as conn:
            await conn.execute(query("revoke_api_key_by_hash"), {"secret_hash": secret_hash})

    async def bots_of(self, account_id: int) -> list[BotOwnership]:
        """The bots an account owns, by name."""
        return await self.pool.all(
            "list an account's bots",
            query("bots_of_account"),
            {"account_id": account_id},
            class_row(BotOwnership),
        )

    async def recent_matches(self, bot_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """A bot's latest ended matches: id, game, status and its seat."""
        async with self.pool.connection("list a bot's matches") as conn:
            cursor = await conn.execute(
                query("bot_recent_matches_brief"), {"bot_id": bot_id, "limit": limit}
            )
            return [
                {"id": r[0], "game": r[1], "status": r[2], "seat": r[3]}
                for r in await cursor.fetchall()
            ]

    async def bot(self, name: str) -> BotOwnership | None:
        """The bot called `name` with its owner, if any."""
        return await self.pool.one(
            f"find bot {name!r}", query("bot_ownership"), {"name": name}, class_row(BotOwnership)
        )

    async def rotate_token(self, bot_id: int, token_hash: bytes) -> None:
        """Replace a bot's token digest: the old token stops working with this commit."""
        params = {"bot_id": bot_id, "token_hash": token_hash}
        async with self.pool.connection("rotate a bot token") as conn:
            await conn.execute(query("rotate_bot_token"), params)

    async def open_entries(self, bot_id: int) -> list[int]:
        """The unfinished tournaments the bot is still entered in."""
        async with self.pool.connection("find a bot's open entries") as conn:
            cursor = await conn.execute(query("open_entries_of_bot"), {"bot_id": bot_id})
            return [int(tid) for (tid,) in await cursor.fetchall()]

    async def retire(self, bot_id: int) -> list[int]:
        """Retire a bot and its versions' own bots (idempotent); their ids."""
        async with self.pool.connection("retire a bot") as conn:
            cursor = await conn.execute(query("retire_bot"), {"bot_id": bot_id})
            return [int(r[0]) for r in await cursor.fetchall()]

    async def create_version(
        self, bot_id: int, label: str, notes: str, provisional: bool
    ) -> VersionRow:
        """A new version of a bot, the one its next matches record; a taken label: `Conflict`."""
        params = {"bot_id": bot_id, "label": label, "notes": notes, "provisional": provisional}
        row = await self.pool.one(
            f"create version {label!r}", query("create_bot_version"), params, _VERSION
        )
        assert row is not None
        return row

    async def versions(self, bot_id: int) -> list[VersionRow]:
        """A bot's versions, newest first."""
        return await self.pool.all(
            "list versions", query("bot_versions"), {"bot_id": bot_id}, _VERSION
        )

    async def owner_of(self, kind: Owned, key: int | str) -> tuple[bool, int | None]:
        """(exists, owner account id) of a tournament or schedule id, or a ladder's game."""
        sql = _OWNER_QUERIES[kind][0]
        params = {"game": key} if kind is Owned.LADDER else {"id": key}
        async with self.pool.connection(f"find the owner of {kind.value} {key}") as conn:
            cursor = await conn.execute(sql, params)
            row = await cursor.fetchone()
        return (False, None) if row is None else (True, row[0])

    async def claim(self, kind: Owned, key: int | str, account_id: int) -> None:
        """Make `account_id` the owner of a new tournament, schedule or ladder without one."""
        params: dict[str, Any] = {"account_id": account_id}
        params.update({"game": key} if kind is Owned.LADDER else {"id": key})
        async with self.pool.connection(f"record the owner of {kind.value} {key}") as conn:
            await conn.execute(_OWNER_QUERIES[kind][1], params)

    async def audit(
        self,
        account_id: int | None,
        actor: str,
        action: str,
        target: str,
        details: dict[str, Any],
    ) -> None:
        """Append one entry to the audit log (`details` must hold no secret)."""
        params = {
            "account_id": account_id,
            "actor": actor,
            "action": action,
            "target": target,
            "details": Jsonb(details),
        }
        async with self.pool.connection(f"audit {action}") as conn:
            await conn.execute(query("insert_audit"), params)

    async def audit_log(
        self, account_id: int | None, limit: int, before_id: int | None
    ) -> list[AuditRow]:
        """Audit entries newest first: everyone's (`account_id` None) or one account's."""
        params = {"account_id": account_id, "limit": limit, "before_id": before_id}
        return await self.pool.all(
            "read the audit log", query("list_audit"), params, class_row(AuditRow)
        )


_OWNER_QUERIES = {
    Owned.TOURNAMENT: (query("tournament_owner"), query("claim_tournament")),
    Owned.SCHEDULE: (query("schedule_owner"), query("claim_schedule")),
    Owned.LADDER: (query("ladder_owner"), query("claim_ladder")),
}
"""Per kind: the query of its owner, and the query that records the owner of a new one."""
_ACCOUNT = class_row(AccountRow)
_KEY = class_row(KeyRow)
_VERSION = class_row(VersionRow)
