"""A minimal Server-Sent Events client over a raw socket, for the live tests and bench/live.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One received event."""

    event: str
    data: Any
    id: int | None


async def events(
    host: str, port: int, path: str, last_event_id: int | None = None, decode: bool = True
) -> AsyncIterator[Event]:
    """The events of `GET path` until the server closes the stream (comments are skipped); with
    `decode` False their data is left undecoded (None), which a crowd of clients can afford."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        resume = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n{resume}"
            "Connection: close\r\n\r\n".encode()
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        if status != 200:
            raise ConnectionError(f"GET {path}: HTTP {status}: {head!r}")
        chunked = b"transfer-encoding: chunked" in head.lower()
        buffer = b""
        while True:
            if chunked:
                size = int((await reader.readuntil(b"\r\n")).strip(), 16)
                if size == 0:
                    return
                buffer += (await reader.readexactly(size + 2))[:-2]
            else:
                piece = await reader.read(65536)
                if not piece:
                    return
                buffer += piece
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                fields: dict[str, str] = {}
                for line in block.decode().split("\n"):
                    if line and not line.startswith(":") and ": " in line:
                        key, value = line.split(": ", 1)
                        fields[key] = value
                if "event" in fields:
                    ident = int(fields["id"]) if "id" in fields else None
                    data = json.loads(fields.get("data", "null")) if decode else None
                    yield Event(fields["event"], data, ident)
    finally:
        writer.close()
