"""Hosted bots' rows: archives stored once by SHA-256, upload pieces, hosted versions.

An upload arrives in pieces (a referee takes messages of at most 64 KiB): `add_part` keeps them
in order per (bot, archive), and `create_version` joins them, checks the whole against its
SHA-256 and its content (`arena.hosting.archive.check`), stores it once, and makes the version.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from psycopg.rows import class_row

from arena.storage.accounts import VersionRow
from arena.storage.errors import Conflict, NotFound
from arena.storage.pool import Pool
from arena.storage.sql import query


class OutOfOrder(Conflict):
    """A piece that does not start where the pieces received so far end."""


class Mismatch(Conflict):
    """Uploaded pieces that do not hash to the SHA-256 they were sent under."""


@dataclass(frozen=True, slots=True)
class MatchOutput:
    """What a hosted bot wrote during one match, as its runner saved it."""

    lines: list[tuple[float, str]]
    """[arrival (epoch seconds), text] per line, oldest first."""
    dropped: int
    """Earlier lines not kept."""


class Hosted:
    """Queries of uploaded archives and hosted versions."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    async def add_part(
        self, bot_id: int, sha256: bytes, offset: int, data: bytes, max_bytes: int
    ) -> int:
        """Keep one piece of an upload; the bytes received so far. OutOfOrder when `offset` is not
        the end of what was received; Conflict when the whole would pass `max_bytes`."""
        params = {"bot_id": bot_id, "sha256": sha256}
        async with self.pool.transaction("keep an archive piece") as conn:
            # One upload per (bot, archive) at a time: the lock orders concurrent pieces.
            await conn.execute(query("lock_archive_upload"), params)
            cursor = await conn.execute(query("archive_received"), params)
            row = await cursor.fetchone()
            received = int(row[0]) if row is not None else 0
            if offset != received:
                raise OutOfOrder(f"this piece starts at {offset}, but {received} bytes arrived")
            if received + len(data) > max_bytes:
                raise Conflict(f"the archive would pass {max_bytes} bytes")
            await conn.execute(
                query("add_archive_part"), {**params, "offset": offset, "data": data}
            )
        return received + len(data)

    async def create_version(
        self,
        bot_id: int,
        label: str,
        notes: str,
        sha256: bytes,
        run: str,
        check: Callable[[bytes], int],
    ) -> VersionRow:
        """A hosted version of the bot on the archive `sha256` (joined from its pieces unless
        stored already). NotFound: no such archive; Mismatch: the pieces do not hash to
        `sha256`; Conflict: the label is taken; `check`'s error when the content is refused."""
        params = {"bot_id": bot_id, "sha256": sha256}
        async with self.pool.transaction(f"create hosted version {label!r}") as conn:
            cursor = await conn.execute(query("archive_content"), params)
            if await cursor.fetchone() is None:
                cursor = await conn.execute(query("assembled_archive"), params)
                row = await cursor.fetchone()
                content = None if row is None else row[0]
                if content is None:
                    raise NotFound("no archive with that SHA-256 was uploaded for this bot")
                content = bytes(content)
                if hashlib.sha256(content).digest() != sha256:
                    await conn.execute(query("drop_archive_parts"), params)
                    raise Mismatch(
                        "the uploaded pieces do not match the archive's SHA-256; upload again"
                    )
                check(content)
                await conn.execute(query("store_archive"), {"sha256": sha256, "content": content})
            await conn.execute(query("drop_archive_parts"), params)
            version = {**params, "label": label, "notes": notes, "run": run}
            rows = conn.cursor(row_factory=class_row(VersionRow))
            await rows.execute(query("create_hosted_version"), version)
            made: VersionRow | None = await rows.fetchone()
        assert made is not None
        return made

    async def archive(self, sha256: bytes) -> bytes | None:
        """An archive's content, for a runner to unpack."""
        async with self.pool.connection("read an archive") as conn:
            cursor = await conn.execute(query("archive_content"), {"sha256": sha256})
            row = await cursor.fetchone()
        return None if row is None else bytes(row[0])

    async def match_output(self, match_id: int, bot_id: int) -> MatchOutput | None:
        """The bot's saved output of the match, if its runner saved any."""
        params = {"match_id": match_id, "bot_id": bot_id}
        async with self.pool.connection(f"read the output of match {match_id}") as conn:
            row = await (await conn.execute(query("match_output"), params)).fetchone()
        if row is None:
            return None
        return MatchOutput([(float(at), str(text)) for at, text in row[0]], int(row[1]))

    async def decision_times(self, match_id: int) -> dict[int, datetime]:
        """When each decision of the match was stored, by number."""
        async with self.pool.connection(f"read decision times of match {match_id}") as conn:
            cursor = await conn.execute(query("decision_times"), {"match_id": match_id})
            return {int(number): at for number, at in await cursor.fetchall()}
