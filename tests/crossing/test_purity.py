"""The Double Crossing engine reads its data files once, at import, and nothing at match time."""

from __future__ import annotations

import ast
import builtins
import importlib.resources
from pathlib import Path
from typing import Any

import pytest

from tests.engines.conformance import play_checked
from tests.engines.test_purity import FORBIDDEN, _imports

PACKAGE = Path(__file__).resolve().parents[2] / "engines" / "crossing"
MODULES = sorted(PACKAGE.glob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_imports_io_clock_or_global_random(path: Path) -> None:
    names = _imports(path)
    bad = [n for n in names if any(n == f or n.startswith(f + ".") for f in FORBIDDEN)]
    assert not bad, f"{path.name} imports {bad}"
    if path.name != "data.py":
        assert not [n for n in names if n.startswith("importlib")], "only data.py reads files"


def test_data_files_are_read_only_by_a_module_level_call() -> None:
    tree = ast.parse((PACKAGE / "data.py").read_text())
    module_calls = [
        node.value.func.id
        for node in tree.body
        if isinstance(node, ast.AnnAssign | ast.Assign)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
    ]
    assert "packaged_boards" in module_calls
    calls_inside_functions = [
        node
        for func in ast.walk(tree)
        if isinstance(func, ast.FunctionDef) and func.name != "packaged_boards"
        for node in ast.walk(func)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "packaged_boards"
    ]
    assert not calls_inside_functions


def test_a_whole_match_runs_with_file_access_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    import engines.crossing  # noqa: F401 - loaded (and its files read) before the ban

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the engine touched a file at match time")

    monkeypatch.setattr(builtins, "open", forbidden)
    monkeypatch.setattr(importlib.resources, "files", forbidden)
    from engines.crossing import CrossingRules

    _, final = play_checked(CrossingRules(), 3, 7, {"round_cap": 15}, deep=False)
    assert final.termination is not None
