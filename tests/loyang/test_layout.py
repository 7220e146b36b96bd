"""The package docstring's "rule -> function" table names functions that exist."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import engines.loyang

PACKAGE = Path(engines.loyang.__file__ or "").parent
ROW = re.compile(r"^\| (?P<rule>[^|]+) \| (?P<functions>`[^|]+) \|$")


def test_every_rule_names_existing_functions() -> None:
    doc = engines.loyang.__doc__ or ""
    table = doc.split("Rule -> function", 1)[1]
    rows = [m for line in table.splitlines() if (m := ROW.match(line))]
    assert len(rows) >= 30, "the table covers every section of the rulebook"
    for row in rows:
        for name in re.findall(r"`([^`]+)`", row["functions"]):
            module, _, attr = name.partition(".")
            target: object = importlib.import_module(f"engines.loyang.{module}")
            for part in attr.split("."):
                target = getattr(target, part)
            assert callable(target), f"{row['rule']}: {name} is not a function"


def test_no_state_holds_a_cache_or_is_mutated_in_place() -> None:
    for module in ("state", "work", "board", "rounds", "card_phase", "action_phase", "view"):
        # The source beside the package, not the module's `__file__` (a `make compiled` build
        # imports an extension module instead).
        text = (PACKAGE / f"{module}.py").read_text(encoding="utf-8")
        assert "object.__setattr__" not in text and ".memo" not in text, module
