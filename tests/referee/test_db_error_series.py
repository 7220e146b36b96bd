"""A referee's database-error series exist at 0 from its start, so that its first outage shows as
an increase to `rate()` and ArenaDatabaseErrors can fire for it."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from arena.ops import metrics
from arena.referee.persistence import with_db_retry
from arena.storage.errors import Conflict, Fenced

MATCH = Path(__file__).resolve().parents[2] / "arena" / "referee" / "match.py"


def test_every_operation_a_match_stores_has_its_series_from_the_start() -> None:
    metrics.start_referee_series(["hart"])
    for operation in metrics.REFEREE_DB_OPERATIONS:
        value = REGISTRY.get_sample_value("arena_db_errors_total", {"operation": operation})
        assert value is not None, f"no arena_db_errors_total{{operation={operation!r}}} at start"
    stored = set(re.findall(r'_stored\(\s*"(\w+)"', MATCH.read_text()))
    assert stored and stored <= set(metrics.REFEREE_DB_OPERATIONS), stored


def _errors(operation: str) -> float:
    return REGISTRY.get_sample_value("arena_db_errors_total", {"operation": operation}) or 0.0


def test_a_fenced_write_is_a_takeover_not_a_database_error() -> None:
    """A referee paused past its lease finds its match taken over: its write is refused by a
    working database. Counted as a database error, every such takeover kept ArenaDatabaseErrors
    firing for minutes after Postgres was fine (the 30-minute chaos soak's `alerts` check)."""

    async def fenced() -> None:
        raise Fenced("record decision 61 of match 519", 519, 1, 3)

    async def conflict() -> None:
        raise Conflict("match 519 has ended")

    metrics.start_referee_series(["hart"])
    before = _errors("record_decision")
    with pytest.raises(Fenced):
        asyncio.run(with_db_retry(519, "record_decision", fenced))
    assert _errors("record_decision") == before
    with pytest.raises(Conflict):
        asyncio.run(with_db_retry(519, "record_decision", conflict))
    assert _errors("record_decision") == before + 1
