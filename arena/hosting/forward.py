"""The hosted bot's only way out: a Unix socket whose every connection the runner forwards, byte
for byte, to a referee's TCP address (gRPC over `unix:` on the bot's side, HTTP/2 untouched)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Callable
from pathlib import Path

CHUNK = 64 * 1024


async def serve(
    socket_path: Path, host: str, port: int, connected: Callable[[], None] | None = None
) -> asyncio.Server:
    """A Unix-socket server at `socket_path` that forwards each connection to host:port, calling
    `connected` each time one reaches the referee."""

    async def forward(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.close()
            return
        if connected is not None:
            connected()
        await asyncio.gather(
            _pipe(reader, upstream_writer), _pipe(upstream_reader, writer), return_exceptions=True
        )

    with contextlib.suppress(FileNotFoundError):
        socket_path.unlink()
    return await asyncio.start_unix_server(forward, sock=bound(socket_path))


def bound(socket_path: Path) -> socket.socket:
    """A Unix stream socket bound at `socket_path`, however deep its folder.

    An address holds at most 107 bytes (sun_path), and a runner's workdir under a long home or
    temporary path passes that: CI's pytest-xdist folders made every hosted bot fail with
    "AF_UNIX path too long". Binding through /proc/self/fd/N, N the folder opened, names the
    same folder in a few bytes (Linux, where the sandbox runs anyway)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    folder = os.open(socket_path.parent, os.O_PATH | os.O_DIRECTORY)
    try:
        sock.bind(f"/proc/self/fd/{folder}/{socket_path.name}")
    except OSError:
        sock.close()
        raise
    finally:
        os.close(folder)
    return sock


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy `reader` into `writer` until either side closes, then close `writer`."""
    try:
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await writer.wait_closed()
