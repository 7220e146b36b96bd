"""Modules stay small, classes stay small, and an import inside a function says why it is there.

House style: a module is one concept of at most about 400 lines, a class at most about 200, and an
import inside a function needs a comment (on its line, or just above its group of imports).
Sizes are read with `ast` from engines/, arena/ (not the generated arena/v1/) and workers/; the
Node SDK's hand-written modules (sdk/node/src/*.js) are held to the same module limit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engines", "arena", "workers")
GENERATED = ROOT / "arena" / "v1"
NODE_SOURCES = ROOT / "sdk" / "node" / "src"
MAX_MODULE_LINES = 400
MAX_CLASS_LINES = 200

MODULE_EXCEPTIONS: set[str] = set()
"""Modules allowed over the limit for now; each entry says why."""
CLASS_EXCEPTIONS: set[str] = set()
"""Classes allowed over the limit for now (`path::Class`)."""
IMPORT_EXCEPTIONS: set[str] = set()
"""Modules whose imports inside functions are not all explained yet."""


def modules() -> Iterator[Path]:
    """Every checked module, generated code left out."""
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not path.is_relative_to(GENERATED):
                yield path


def relative(path: Path) -> str:
    """`path` as written in the exception lists."""
    return path.relative_to(ROOT).as_posix()


def is_exempt(name: str, exceptions: set[str]) -> bool:
    """Whether `name` (a path, or `path::Class`) is listed."""
    return name in exceptions


def module_sizes() -> dict[str, int]:
    """Lines of every checked module."""
    return {relative(path): len(path.read_text().splitlines()) for path in modules()}


def class_sizes() -> dict[str, int]:
    """Lines of every class (nested ones too) of every checked module, by `path::Class`."""
    sizes = {}
    for path in modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                sizes[f"{relative(path)}::{node.name}"] = node.end_lineno - first + 1
    return sizes


def oversized(sizes: dict[str, int], limit: int, exceptions: set[str]) -> list[str]:
    """The entries of `sizes` over `limit` that no exception covers, with their sizes."""
    return [
        f"{name}: {size} lines (limit {limit})"
        for name, size in sorted(sizes.items(), key=lambda item: -item[1])
        if size > limit and not is_exempt(name, exceptions)
    ]


def unexplained_imports(source: str, name: str) -> list[str]:
    """Imports inside functions of module `name` with no comment on their line or above them.

    Above means: the first line up that is neither blank nor part of another import, so one
    comment explains a group of imports (isort's blank lines between groups included).
    """
    lines = source.splitlines()
    tree = ast.parse(source, name)
    import_lines = {
        number
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for number in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    found = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(function):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            own = lines[node.lineno - 1 : node.end_lineno or node.lineno]
            above = node.lineno - 1
            while above > 0 and (above in import_lines or not lines[above - 1].strip()):
                above -= 1
            has_reason = above > 0 and lines[above - 1].strip().startswith("#")
            if not has_reason and not any("#" in line for line in own):
                found.add((node.lineno, f"{name}:{node.lineno}: {own[0].strip()}"))
    return [text for _, text in sorted(found)]


def test_modules_are_at_most_400_lines() -> None:
    """No module over `MAX_MODULE_LINES` but the listed exceptions."""
    offenders = oversized(module_sizes(), MAX_MODULE_LINES, MODULE_EXCEPTIONS)
    assert offenders == [], "modules to split by concept:\n" + "\n".join(offenders)


def test_node_sdk_modules_are_at_most_400_lines() -> None:
    """The Node SDK's modules keep the same limit as the Python ones."""
    sizes = {
        relative(path): len(path.read_text().splitlines())
        for path in sorted(NODE_SOURCES.glob("*.js"))
    }
    assert sizes, f"no modules found in {NODE_SOURCES}"
    offenders = oversized(sizes, MAX_MODULE_LINES, MODULE_EXCEPTIONS)
    assert offenders == [], "modules to split by concept:\n" + "\n".join(offenders)


def test_classes_are_at_most_200_lines() -> None:
    """No class over `MAX_CLASS_LINES` but the listed exceptions."""
    offenders = oversized(class_sizes(), MAX_CLASS_LINES, CLASS_EXCEPTIONS)
    assert offenders == [], "classes to split by responsibility:\n" + "\n".join(offenders)


def test_imports_inside_functions_say_why() -> None:
    """An import inside a function has a comment on its line or just above its group."""
    offenders = [
        line
        for path in modules()
        if relative(path) not in IMPORT_EXCEPTIONS
        for line in unexplained_imports(path.read_text(), relative(path))
    ]
    assert offenders == [], "imports inside functions without a reason:\n" + "\n".join(offenders)


def test_exceptions_are_still_needed() -> None:
    """An exception whose module or class shrank (or went) is removed from the lists."""
    modules_now, classes_now = module_sizes(), class_sizes()
    stale = [m for m in MODULE_EXCEPTIONS if modules_now.get(m, 0) <= MAX_MODULE_LINES]
    stale += [c for c in CLASS_EXCEPTIONS if classes_now.get(c, 0) <= MAX_CLASS_LINES]
    stale += [m for m in IMPORT_EXCEPTIONS if not unexplained_imports((ROOT / m).read_text(), m)]
    assert stale == [], "exceptions no longer needed: " + ", ".join(sorted(stale))


def test_the_checks_see_an_offender() -> None:
    """The checks are not vacuous: a large module, a large class and a bare import are caught."""
    assert oversized({"arena/big.py": 401}, MAX_MODULE_LINES, set()) == [
        "arena/big.py: 401 lines (limit 400)"
    ]
    assert oversized({"arena/big.py": 400}, MAX_MODULE_LINES, set()) == []
    assert oversized({"engines/x.py::Big": 900}, MAX_CLASS_LINES, set()) == [
        "engines/x.py::Big: 900 lines (limit 200)"
    ]
    source = "def f():\n    import os\n\n    # why\n    import sys\n    import re\n    return os\n"
    assert unexplained_imports(source, "arena/x.py") == ["arena/x.py:2: import os"]
    assert unexplained_imports("import os\ndef f():\n    import re  # why\n", "a.py") == []
