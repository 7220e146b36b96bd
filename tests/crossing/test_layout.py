"""The package docstring's "rule -> function" table names functions that exist, for every rule."""

from __future__ import annotations

import importlib
import re

import engines.crossing

ENTRY = re.compile(r"`([a-z_]+)\.([A-Za-z_][A-Za-z_.]*)`")


def _table() -> list[str]:
    doc = engines.crossing.__doc__ or ""
    rows: list[str] = []
    for line in doc[doc.index("Rule -> function") :].splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        if line.startswith("| ") and not line.startswith(("| rule ", "| ---")):
            rows.append(line)
    return rows


def test_every_rule_names_at_least_one_function_and_every_name_resolves() -> None:
    rows = _table()
    assert len(rows) >= 40, "one row per rule of the rulebook"
    for row in rows:
        entries = ENTRY.findall(row.split("|")[2])
        assert entries, f"no function named in {row!r}"
        for module, name in entries:
            target: object = importlib.import_module(f"engines.crossing.{module}")
            for part in name.split("."):
                assert hasattr(target, part), f"{module}.{name} does not exist ({row!r})"
                target = getattr(target, part)
            assert callable(target), f"{module}.{name} is not a function"


def test_every_rulebook_section_has_a_row() -> None:
    rules = " ".join(row.split("|")[1] for row in _table())
    sections = ["Components", "Setup", "Play 1", "Play 2", "Crew cards", "End", "Part B"]
    spaces = ["GOVT CONTRACT", "TRAIN SHOP", "TRADE", "ROLL AGAIN", "STOP", "PAY TAXES", "YARD"]
    spaces += ["CREW CARDS", "CORNER STATIONS", "DERAIL", "DOUBLE CROSS", "ROUNDHOUSE"]
    spaces += ["CONTROL TOWER", "DEPOT", "DISSATISFIED CUSTOMER", "CONNECTIONS"]
    general = [f"General rule {n}" for n in range(1, 7)]
    crew = [f"Crew card {n}" for n in range(1, 5)]
    missing = [s for s in sections + spaces + general + crew if s not in rules]
    assert not missing, f"no row for {missing}"


def test_the_table_names_no_module_that_is_not_in_the_file_roles() -> None:
    doc = engines.crossing.__doc__ or ""
    modules = {module for row in _table() for module, _ in ENTRY.findall(row.split("|")[2])}
    missing = sorted(m for m in modules if f"`{m}.py`" not in doc)
    assert not missing, f"modules without a file role: {missing}"
