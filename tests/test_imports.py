"""The import graph of arena/, engines/ and workers/ has no cycles and points one way.

The graph is read from the source with `ast`, so it sees imports inside functions too (they
still form a cycle when the function runs). Imports under `if TYPE_CHECKING:` are left out:
they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("arena", "engines", "workers")
FORBIDDEN = {
    "engines": ("arena", "workers", "bench", "tests"),
    "arena": ("workers", "bench", "tests"),
}


def module_name(path: Path) -> str:
    """The dotted name of the module stored at `path`."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    """Every module of the checked packages, by dotted name."""
    return {
        module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def is_type_checking(test: ast.expr) -> bool:
    """Whether an `if` test is `TYPE_CHECKING` (bare or as `typing.TYPE_CHECKING`)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node that can run: skips the bodies of `if TYPE_CHECKING:` blocks."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and is_type_checking(child.test):
            for node in child.orelse:
                yield node
                yield from runtime_nodes(node)
            continue
        yield child
        yield from runtime_nodes(child)


def imported_names(name: str, path: Path) -> Iterator[str]:
    """The dotted names that module `name` imports, at any depth in its body.

    `from a.b import c` gives a.b.c, which is either a module or a name defined by a.b.
    """
    is_package = path.name == "__init__.py"
    for node in runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([base] if base else []))
            yield from (f"{base}.{alias.name}" for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    """For each module, the modules of the checked packages it imports."""
    modules = all_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        # `from package import thing` needs the module package.thing when there is one, else
        # the package itself (whose __init__ defines thing).
        targets = {
            target if target in modules else target.rpartition(".")[0]
            for target in imported_names(name, path)
        }
        targets &= modules.keys()
        graph[name] = targets - {name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle in `graph` as a list of modules, or None when there is none."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in sorted(graph[node]):
            if target in on_path:
                return [*path[path.index(target) :], target]
            if target not in done:
                found = visit(target)
                if found:
                    return found
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done:
            found = visit(start)
            if found:
                return found
    return None


def all_imports() -> Iterator[tuple[str, str]]:
    """Every (module, imported name) pair, including names outside the checked packages."""
    for name, path in all_modules().items():
        for target in imported_names(name, path):
            yield name, target


def test_no_import_cycles() -> None:
    """No module of arena/, engines/ or workers/ imports itself, directly or not."""
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_layers_point_one_way() -> None:
    """engines/ knows nothing of arena/ or workers/; arena/ knows nothing of workers/."""
    wrong = sorted(
        f"{module} imports {target}"
        for module, target in all_imports()
        for banned in FORBIDDEN.get(module.split(".")[0], ())
        if target == banned or target.startswith(banned + ".")
    )
    assert wrong == []


def test_cycle_finder_finds_a_cycle() -> None:
    """The cycle check is not vacuous: it reports a known cycle."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
