"""Hart follows GAME_LAYOUT.md: each rule -> function entry resolves; every rule has a row."""

from __future__ import annotations

import importlib
import re

import engines.hart
from engines.hart.rules import HartRules

POINTS = (
    "number of players",
    "money",
    "declared count vs. actual count",
    "fewer cards than declared",
    "compensation",
    "a player who cannot pay a penalty in full",
    "bribe negotiation",
    "extra control",
    "seizure",
    "dealing",
    "first sheriff of the game",
    "what is public",
    "who picks the next round's first sheriff",
    "end-of-round selling and keeping",
    "end-of-game sale",
    "winner",
)
"""The points of the rulebook's "Decisions the rulebook leaves to the engine" table."""


def table() -> dict[str, list[str]]:
    """The rule -> function table of the package docstring: rule -> ["module.name", ...]."""
    doc = engines.hart.__doc__ or ""
    head = "Rule -> function (the rulebook: shared/rules/hart-an-der-grenze.md)"
    assert head in doc
    rows: dict[str, list[str]] = {}
    for line in doc.split(head, 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or cells[0] in ("rule", "---"):
            continue
        rows[cells[0]] = re.findall(r"`([^`]+)`", cells[1])
    return rows


def test_every_entry_names_something_that_exists() -> None:
    rows = table()
    assert len(rows) >= len(POINTS) + 6
    for rule, names in rows.items():
        assert names, rule
        for name in names:
            module, *attrs = name.split(".")
            target: object = importlib.import_module(f"engines.hart.{module}")
            for attr in attrs:
                assert hasattr(target, attr), f"{rule}: {name} does not exist"
                target = getattr(target, attr)


def test_every_point_and_worked_example_has_a_row() -> None:
    rules = set(table())
    for point in POINTS:
        assert any(r.startswith(f"Decisions: {point}") for r in rules), point
    for example in range(1, 7):
        assert any(r.startswith(f"Worked example {example}:") for r in rules), example


def test_rules_define_the_contract_natively() -> None:
    for legacy in ("setup", "_apply"):
        assert legacy not in vars(HartRules), legacy
    for native in ("start", "step"):
        assert native in vars(HartRules), native
