"""Structured logs: JSON lines when not on a terminal, readable lines on one.

Every line carries the ids in scope (match, tournament, bot) so one match can be followed across
referees and workers: set them with `log_context(match_id=...)` or pass `extra={"match_id": ...}`.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

CONTEXT_KEYS = ("match_id", "tournament_id", "round_no", "bot", "bot_id", "task_id")
_context: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("arena_log_context")


@contextlib.contextmanager
def log_context(**ids: Any) -> Iterator[None]:
    """Attach ids to every log line written inside the block (and tasks it starts)."""
    token = _context.set({**_context.get({}), **{k: v for k, v in ids.items() if v is not None}})
    try:
        yield
    finally:
        _context.reset(token)


def _ids(record: logging.LogRecord) -> dict[str, Any]:
    ids = dict(_context.get({}))
    for key in CONTEXT_KEYS:
        value = getattr(record, key, None)
        if value is not None:
            ids[key] = value
    return ids


class JsonFormatter(logging.Formatter):
    """One JSON object per line."""

    def __init__(self, process: str) -> None:
        super().__init__()
        self.process = process

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "process": self.process,
            "logger": record.name,
            "msg": record.getMessage(),
            **_ids(record),
        }
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class ReadableFormatter(logging.Formatter):
    """`HH:MM:SS level logger: message [match_id=7 bot=alice]`."""

    def format(self, record: logging.LogRecord) -> str:
        ids = " ".join(f"{k}={v}" for k, v in _ids(record).items())
        stamp = time.strftime("%H:%M:%S", time.localtime(record.created))
        line = f"{stamp} {record.levelname.lower():<7} {record.name}: {record.getMessage()}"
        if ids:
            line += f"  [{ids}]"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure_logging(process: str, level: int = logging.INFO, stream: Any = None) -> None:
    """Send the root logger to `stream` (stderr), as JSON unless it is a terminal."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    is_tty = hasattr(stream, "isatty") and stream.isatty()
    handler.setFormatter(ReadableFormatter() if is_tty else JsonFormatter(process))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def logged(process: str, command: Callable[[], int]) -> int:
    """Run `command` with logging configured for `process`; its exit code."""
    configure_logging(process)
    return command()
