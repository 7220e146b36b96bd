"""Engines stay pure: no I/O, no clock, no global random generator, no upper layers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINES = Path(__file__).resolve().parents[2] / "engines"

FORBIDDEN = {
    "random",
    "time",
    "datetime",
    "os",
    "sys",
    "socket",
    "subprocess",
    "logging",
    "threading",
    "asyncio",
    "io",
    "shutil",
    "tempfile",
    "pathlib",
    "urllib",
    "http",
    "sqlite3",
    "secrets",
    "uuid",
    "numpy.random",
    "grpc",
    "psycopg",
    "celery",
    "redis",
    "arena",
    "workers",
}
# pyspiel (engines/openspiel/adapter.py) is not listed: a compiled library whose games the
# adapter only loads by name and steps; chance goes through the match's HashRng, never its own.
# importlib.resources reads the packaged data files once, at import; nothing else may do I/O.
ALLOWED_EXCEPTIONS = {"importlib.resources"}
IMPURE_BY_DESIGN = {
    "build_guard.py": "chooses which build of the engine modules loads, before any loads: it "
    "reads ARENA_PURE_ENGINES and the build's stamp and sets sys.path_hooks; no rule runs in it"
}
"""Modules under engines/ allowed the environment, with why. Nothing else is."""


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in ENGINES.rglob("*.py")
        if p.relative_to(ENGINES).as_posix() not in IMPURE_BY_DESIGN
    ),
    ids=lambda p: str(p.relative_to(ENGINES)),
)
def test_engine_module_imports_nothing_impure(path: Path) -> None:
    bad = [
        name
        for name in _imports(path)
        if name not in ALLOWED_EXCEPTIONS
        and any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    ]
    assert not bad, f"{path.name} imports {bad}"


def test_no_builtin_open_or_print_in_engines() -> None:
    offenders = []
    for path in ENGINES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in {"open", "print", "input", "eval", "exec", "hash"}
            ):
                offenders.append(f"{path.name}:{node.lineno} {node.func.id}()")
    assert not offenders, offenders


def test_the_checker_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "bad.py"
    sample.write_text("import random\nfrom time import monotonic\n")
    assert _imports(sample) == ["random", "time", "time.monotonic"]
