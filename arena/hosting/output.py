"""A hosted bot's stdout and stderr, kept as a bounded tail for its owner, and line by line with
the time each line arrived (so the runner can file them under the matches they were written in)."""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable

CHUNK = 64 * 1024
LINES_KEPT = 2000
"""The most recent lines kept with their arrival time, per run of a bot."""
LINE_CHARS = 400
"""A longer line is cut to this many characters."""

Line = tuple[float, str]
"""A line the bot wrote: its arrival (`time.time()`) and its text."""


class OutputBuffer:
    """The latest `capacity` bytes a bot wrote, and how many bytes it wrote in all."""

    def __init__(self, capacity: int, clock: Callable[[], float] = time.time) -> None:
        self.capacity = capacity
        self.clock = clock
        self.total = 0
        self._tail = bytearray()
        self.lines: collections.deque[Line] = collections.deque(maxlen=LINES_KEPT)
        """The latest complete lines with their arrival times."""
        self._partial = b""

    def append(self, data: bytes) -> None:
        """Add what the bot wrote; the oldest bytes beyond the capacity are dropped."""
        self.total += len(data)
        self._tail += data[-self.capacity :]
        excess = len(self._tail) - self.capacity
        if excess > 0:
            del self._tail[:excess]
        pieces = (self._partial + data).split(b"\n")
        self._partial = pieces.pop()[: 4 * LINE_CHARS]
        now = self.clock()
        for piece in pieces[-LINES_KEPT:]:
            self.lines.append((now, _line(piece)))

    def close(self) -> None:
        """The bot's output ended: keep its last line even without a newline."""
        if self._partial:
            self.lines.append((self.clock(), _line(self._partial)))
            self._partial = b""

    @property
    def dropped(self) -> int:
        """Bytes written but no longer kept."""
        return self.total - len(self._tail)

    def text(self) -> str:
        """The kept tail as text (undecodable bytes replaced), with a note of what was dropped."""
        body = bytes(self._tail).decode("utf-8", errors="replace")
        if self.dropped:
            return f"[{self.dropped} earlier bytes dropped]\n{body}"
        return body


async def drain(
    stream: asyncio.StreamReader,
    buffer: OutputBuffer,
    kill_after: int,
    on_flood: Callable[[], None],
) -> None:
    """Read `stream` to its end into `buffer`; call `on_flood` once when more than `kill_after`
    bytes were written (the caller stops the bot; we keep reading so the pipe never blocks it)."""
    flooded = False
    while chunk := await stream.read(CHUNK):
        buffer.append(chunk)
        if not flooded and buffer.total > kill_after:
            flooded = True
            on_flood()
    buffer.close()


def _line(raw: bytes) -> str:
    """One line as text: decoded (bad bytes replaced), cut to LINE_CHARS."""
    text = raw[: 4 * LINE_CHARS].decode("utf-8", errors="replace").rstrip("\r")
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS] + "..."
