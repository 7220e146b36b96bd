"""arena.ops.logs: JSON lines off a terminal, readable lines on one, ids from context and extra."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from arena.ops.logs import configure_logging, log_context


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def restore_root_logger() -> Iterator[None]:
    """configure_logging replaces the root logger's handlers; put pytest's back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def json_lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_when_not_a_terminal() -> None:
    stream = io.StringIO()
    configure_logging("referee", stream=stream)
    logging.getLogger("arena.referee").info("match %s started", 7)
    (entry,) = json_lines(stream)
    assert entry["msg"] == "match 7 started"
    assert entry["level"] == "info" and entry["process"] == "referee"
    assert entry["logger"] == "arena.referee"
    assert str(entry["ts"]).endswith("Z") and "T" in str(entry["ts"])


def test_readable_on_a_terminal() -> None:
    stream = Terminal()
    configure_logging("referee", stream=stream)
    with log_context(match_id=7):
        logging.getLogger("arena.referee").warning("slow bot")
    line = stream.getvalue().rstrip("\n")
    assert "warning" in line and "arena.referee: slow bot" in line
    assert line.endswith("[match_id=7]")
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)


def test_ids_come_from_log_context_nested_and_reset() -> None:
    stream = io.StringIO()
    configure_logging("worker", stream=stream)
    log = logging.getLogger("workers")
    with log_context(tournament_id=3, round_no=2, bot=None):
        with log_context(match_id=11):
            log.info("inner")
        log.info("outer")
    log.info("after")
    inner, outer, after = json_lines(stream)
    assert (inner["tournament_id"], inner["round_no"], inner["match_id"]) == (3, 2, 11)
    assert "bot" not in inner, "None ids are left out"
    assert outer["tournament_id"] == 3 and "match_id" not in outer
    assert not {"tournament_id", "round_no", "match_id"} & set(after)


def test_ids_come_from_extra_and_override_the_context() -> None:
    stream = io.StringIO()
    configure_logging("referee", stream=stream)
    with log_context(match_id=1, bot="alice"):
        logging.getLogger("arena").info("x", extra={"match_id": 2, "bot_id": 5, "other": "no"})
    (entry,) = json_lines(stream)
    assert (entry["match_id"], entry["bot"], entry["bot_id"]) == (2, "alice", 5)
    assert "other" not in entry, "only the known ids are carried"


def test_exceptions_are_kept() -> None:
    stream = io.StringIO()
    configure_logging("referee", stream=stream)
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("arena").exception("failed", extra={"task_id": "t-1"})
    (entry,) = json_lines(stream)
    assert entry["level"] == "error" and entry["task_id"] == "t-1"
    assert "ValueError: boom" in str(entry["error"])


def test_level_is_applied() -> None:
    stream = io.StringIO()
    configure_logging("beat", level=logging.WARNING, stream=stream)
    logging.getLogger("arena").info("hidden")
    logging.getLogger("arena").warning("shown")
    assert [e["msg"] for e in json_lines(stream)] == ["shown"]
