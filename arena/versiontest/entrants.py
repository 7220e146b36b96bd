"""A test's sides by name: `NAME` (a bot) or `NAME@LABEL` (one version of a bot, as its own bot).

The referee seats, connects and routes bots by id, and a bot's seat plays whatever program is
connected with its token (a hosted bot: its newest version). So a version named in a test plays
as a bot of its own, named `NAME@LABEL`, made on first use: it belongs to the bot's owner and
always plays that version (`bots.plays_version_id`, migration 0014; its seats record it). A hosted
version is run by the runners under that bot; an author's own program for the version connects
with that bot's token (`arena bot token NAME@LABEL`). Two versions of one bot are then two bots
at one table, and each match plays exactly the versions the test names.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from arena.storage.sql import query

SEPARATOR = "@"


@dataclass(frozen=True, slots=True)
class Entrant:
    """A side as named: a bot, and optionally one of its versions."""

    bot: str
    label: str | None = None

    @property
    def name(self) -> str:
        """The name the side plays under: `NAME`, or `NAME@LABEL` for a version."""
        return self.bot if self.label is None else f"{self.bot}{SEPARATOR}{self.label}"


def parse_entrant(text: str) -> Entrant:
    """`NAME` or `NAME@LABEL`; `ValueError` names what is missing."""
    name, at, label = text.partition(SEPARATOR)
    if not name:
        raise ValueError(f"{text!r} names no bot: use a bot's name, or NAME@LABEL for a version")
    if at and not label:
        raise ValueError(f"{text!r} names no version: write NAME@LABEL, e.g. {name}@v2")
    if SEPARATOR in label:
        raise ValueError(f"{text!r}: write NAME@LABEL with one '@'")
    return Entrant(name, label if at else None)


async def resolve(conn: Any, entrant: Entrant) -> int:
    """The id of the bot that plays `entrant`, making a version's own bot on first use;
    `LookupError` names an unknown bot or label (with the labels the bot has)."""
    if entrant.label is None:
        cursor = await conn.execute(query("bot_ids_by_name"), {"names": [entrant.bot]})
        row = await cursor.fetchone()
        if row is None:
            raise LookupError(f"no bot named {entrant.bot}")
        return int(row[0])
    cursor = await conn.execute(
        query("bot_version_by_label"), {"name": entrant.bot, "label": entrant.label}
    )
    found = await cursor.fetchone()
    if found is None:
        raise LookupError(f"no bot named {entrant.bot} (in {entrant.name})")
    bot_id, owner_id, version_id = found
    if version_id is None:
        cursor = await conn.execute(query("bot_version_labels"), {"bot_id": bot_id})
        labels = ", ".join(str(r[0]) for r in await cursor.fetchall()) or "none"
        raise LookupError(
            f"bot {entrant.bot} has no version {entrant.label!r} (in {entrant.name}); "
            f"its versions: {labels}"
        )
    token_hash = hashlib.sha256(secrets.token_bytes(32)).digest()  # no one holds its token yet
    cursor = await conn.execute(
        query("version_bot"),
        {
            "name": entrant.name,
            "token_hash": token_hash,
            "owner_id": owner_id,
            "version_id": version_id,
        },
    )
    made = await cursor.fetchone()
    assert made is not None
    return int(made[0])
