"""The wire forms of accounts, keys, bot versions and audit entries (never a stored secret)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from google.protobuf.timestamp_pb2 import Timestamp

from arena.storage.accounts import AccountRow, AuditRow, BotOwnership, KeyRow, Role, VersionRow
from arena.v1 import account_pb2

ROLES: dict[int, Role] = {
    account_pb2.ROLE_ADMIN: Role.ADMIN,
    account_pb2.ROLE_ORGANISER: Role.ORGANISER,
    account_pb2.ROLE_AUTHOR: Role.AUTHOR,
}
"""Wire role -> stored role (ROLE_UNSPECIFIED is handled by the caller)."""
ROLE_CODES = {role: code for code, role in ROLES.items()}


def _set(field: Timestamp, value: datetime | None) -> None:
    if value is not None:
        field.FromDatetime(value)


def account_message(row: AccountRow) -> account_pb2.Account:
    """An account, saying whether it has a password but never the hash."""
    out = account_pb2.Account(
        account_id=row.id,
        name=row.name,
        role=ROLE_CODES[Role(row.role)],  # type: ignore[arg-type]
        has_password=row.password_hash is not None,
    )
    out.created_at.FromDatetime(row.created_at)
    return out


def key_message(row: KeyRow) -> account_pb2.ApiKey:
    """A key's name and dates (its secret is never stored)."""
    out = account_pb2.ApiKey(name=row.name)
    _set(out.created_at, row.created_at)
    _set(out.expires_at, row.expires_at)
    _set(out.revoked_at, row.revoked_at)
    _set(out.last_used_at, row.last_used_at)
    return out


def version_message(row: VersionRow) -> account_pb2.BotVersion:
    """One version of a bot."""
    out = account_pb2.BotVersion(
        label=row.label, notes=row.notes, provisional=row.provisional, matches=row.matches
    )
    if row.archive_sha256 is not None:
        out.hosted = True
        out.run = row.run_command or ""
        out.archive_sha256 = row.archive_sha256.hex()
        out.archive_bytes = row.archive_bytes or 0
    out.created_at.FromDatetime(row.created_at)
    return out


def versions_message(bot: BotOwnership, rows: Sequence[VersionRow]) -> account_pb2.BotVersions:
    """A bot's owner, retirement and versions."""
    out = account_pb2.BotVersions(
        bot=bot.name,
        owner=bot.owner,
        versions=[version_message(r) for r in rows],
        always_on=bot.always_on,
        runner=bot.runner,
    )
    _set(out.retired_at, bot.retired_at)
    return out


def audit_message(row: AuditRow) -> account_pb2.AuditEntry:
    """One audit entry."""
    out = account_pb2.AuditEntry(
        id=row.id,
        actor=row.actor,
        action=row.action,
        target=row.target,
        details_json=json.dumps(row.details, sort_keys=True),
    )
    out.created_at.FromDatetime(row.created_at)
    return out
