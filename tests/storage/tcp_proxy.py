"""A TCP proxy in front of Postgres that a test can stop (cutting every connection) and start."""

from __future__ import annotations

import asyncio
import contextlib

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from arena.ops.ports import free_port


class TcpProxy:
    """Forwards 127.0.0.1:`port` to the server of `url` (TCP or a Unix socket folder)."""

    def __init__(self, url: str) -> None:
        info = conninfo_to_dict(url)
        self.target_host = str(info.get("host") or "127.0.0.1")
        self.target_port = int(info.get("port") or 5432)
        self.port = free_port()
        self.url = make_conninfo(url, host="127.0.0.1", port=str(self.port))
        """`url`, through the proxy."""
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def _open_target(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.target_host.startswith("/"):
            path = f"{self.target_host}/.s.PGSQL.{self.target_port}"
            return await asyncio.open_unix_connection(path)
        return await asyncio.open_connection(self.target_host, self.target_port)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.CancelledError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            target_reader, target_writer = await self._open_target()
        except OSError:
            writer.close()
            return
        self._writers |= {writer, target_writer}
        try:
            await asyncio.gather(
                self._pipe(reader, target_writer), self._pipe(target_reader, writer)
            )
        finally:
            self._writers -= {writer, target_writer}

    async def start(self) -> None:
        """Accept connections (again) on the same port."""
        self._server = await asyncio.start_server(
            self._client, "127.0.0.1", self.port, reuse_address=True
        )

    async def stop(self) -> None:
        """Refuse new connections and cut every open one, as a crashed server would."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()
