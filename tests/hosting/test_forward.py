"""The runner's forwarding socket binds however deep the runner's workdir is: an AF_UNIX address
holds 107 bytes, and CI's pytest-xdist temporary folders made every hosted bot fail with
"AF_UNIX path too long"."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
from pathlib import Path

from arena.hosting import forward


def test_a_socket_deep_in_a_long_folder_forwards_to_the_referee(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*["a-rather-long-folder-name"] * 6)
    deep.mkdir(parents=True)
    path = deep / "referee.sock"
    assert len(str(path).encode()) > 108

    async def scenario() -> bytes:
        async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"referee says " + await reader.readexactly(2))
            await writer.drain()
            writer.close()

        referee = await asyncio.start_server(echo, "127.0.0.1", 0)
        port = referee.sockets[0].getsockname()[1]
        server = await forward.serve(path, "127.0.0.1", port)
        try:
            assert stat.S_ISSOCK(path.stat().st_mode), "the socket is where the sandbox binds it"
            # A client as deep: connect through the folder opened, as the bind did.
            folder = os.open(deep, os.O_PATH | os.O_DIRECTORY)
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                client.connect(f"/proc/self/fd/{folder}/referee.sock")
            finally:
                os.close(folder)
            reader, writer = await asyncio.open_unix_connection(sock=client)
            writer.write(b"hi")
            await writer.drain()
            answer = await reader.read()
            writer.close()
            return answer
        finally:
            server.close()
            referee.close()

    assert asyncio.run(scenario()) == b"referee says hi"
