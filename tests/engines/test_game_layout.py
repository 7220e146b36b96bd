"""Every game is written the same way: the same files with the same roles, the native contract,
no event log in state, and a "rule -> function" table whose every entry names a real function.

The layout is described in `engines/api.py` (the update style) and in each game's package
docstring; this test keeps the three games from drifting apart again.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import engines
from engines import HashRng
from engines.api import Rules

ROLE_FILES = (
    "__init__.py",
    "data.py",
    "state.py",
    "actions.py",
    "work.py",
    "rules.py",
    "legal.py",
    "view.py",
    "wire.py",
    "scenario.py",
    "members.py",
)
"""The files every game package has, each with the same role (see a game's docstring)."""

CURSOR_FIELDS = {"log", "seen", "last_seen", "events", "cursors"}
"""Fields that belong to the driver (engines.driver), never to a game's state."""

TABLE_ROW = re.compile(r"^\s*\|(?P<rule>[^|]+)\|(?P<functions>[^|]+)\|\s*$")
REFERENCE = re.compile(r"`([A-Za-z_][\w.]*)`")


def _package(rules: Rules[Any, Any, Any]) -> ModuleType:
    return importlib.import_module(type(rules).__module__.rsplit(".", 1)[0])


def _rule_table(package: ModuleType) -> list[tuple[str, list[str]]]:
    """The rows of the package docstring's "rule -> function" table: (rule, [references])."""
    doc = package.__doc__ or ""
    heading = re.search(r"^\s*Rule (->|→) function.*$", doc, re.MULTILINE)
    assert heading, f"{package.__name__} docstring has no 'Rule -> function' table"
    rows = []
    for line in doc[heading.end() :].splitlines():
        match = TABLE_ROW.match(line)
        if match is None:
            if rows and line.strip() == "":
                break
            continue
        rule, functions = match["rule"].strip(), match["functions"]
        if rule in {"rule", "---"} or set(rule) <= {"-", " "}:
            continue
        rows.append((rule, REFERENCE.findall(functions)))
    return rows


def _resolve(package: ModuleType, reference: str) -> object:
    """The object `module.name[.attr]` names, relative to the game package."""
    module_name, *attributes = reference.split(".")
    target: object = importlib.import_module(f"{package.__name__}.{module_name}")
    for attribute in attributes:
        target = getattr(target, attribute)
    return target


@pytest.mark.parametrize("game", engines.names())
def test_every_game_has_the_same_files(game: str) -> None:
    folder = Path(_package(engines.get(game)).__file__ or "").parent
    missing = [name for name in ROLE_FILES if not (folder / name).is_file()]
    assert not missing, f"{game} lacks {missing}"
    grab_bags = sorted(p.name for p in folder.glob("*.py") if p.stem in {"helpers", "utils"})
    assert not grab_bags, f"{game} has grab-bag modules {grab_bags}"


ENUM_REBINDING = re.compile(r"^\w+(: Final)? = [A-Z]\w*\.[A-Z][A-Z0-9_]*$", re.MULTILINE)
"""A module-level line binding one enum member to a name, e.g. `_OVER: Final = Phase.OVER`."""


@pytest.mark.parametrize("game", engines.names())
def test_enum_members_are_bound_in_members_py_only(game: str) -> None:
    folder = Path(_package(engines.get(game)).__file__ or "").parent
    rebinding = {
        path.name: ENUM_REBINDING.findall(path.read_text())
        for path in sorted(folder.glob("*.py"))
        if path.name != "members.py"
    }
    assert not {name: lines for name, lines in rebinding.items() if lines}, (
        f"{game}: bind enum members in members.py and import them from there"
    )


@pytest.mark.parametrize("game", engines.names())
def test_every_game_implements_the_native_contract(game: str) -> None:
    rules = engines.get(game)
    game_classes = type(rules).__mro__[: type(rules).__mro__.index(Rules)]
    defined = {name for klass in game_classes for name in vars(klass)}
    assert {"start", "step"} <= defined, f"{game} does not implement start and step"
    legacy = {"setup", "_apply"} & defined
    assert not legacy, f"{game} still defines {sorted(legacy)}; implement start/step"


def _dataclass_fields(value: object, seen: set[int]) -> set[str]:
    """The field names of `value` and of every dataclass it holds, recursively."""
    if id(value) in seen:
        return set()
    seen.add(id(value))
    names: set[str] = set()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            names.add(f.name)
            names |= _dataclass_fields(getattr(value, f.name), seen)
    elif isinstance(value, tuple | list | frozenset):
        for item in list(value)[:8]:
            names |= _dataclass_fields(item, seen)
    return names


@pytest.mark.parametrize("game", engines.names())
def test_game_state_holds_no_event_log_or_cursor(game: str) -> None:
    rules = engines.get(game)
    seats = min(rules.seat_counts)
    start = rules.start(seats, rules.resolve_options({}), HashRng.for_setup(3))
    found = _dataclass_fields(start.state, set()) & CURSOR_FIELDS
    assert not found, f"{game} state keeps driver data {sorted(found)}"


@pytest.mark.parametrize("game", engines.names())
def test_rule_table_names_real_code(game: str) -> None:
    package = _package(engines.get(game))
    rows = _rule_table(package)
    assert len(rows) >= 5, f"{game}'s rule table has only {len(rows)} rows"
    for rule, references in rows:
        assert references, f"{game}: rule {rule!r} names no function"
        for reference in references:
            # A rule that is a number (a price, a seat range) may name a constant of `data`.
            try:
                _resolve(package, reference)
            except (ImportError, AttributeError) as exc:
                pytest.fail(f"{game}: rule {rule!r} names {reference!r}, which is missing: {exc}")
