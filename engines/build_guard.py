"""A compiled build of the engines never runs code older than its sources.

`make install` compiles the games' rule modules in place with mypyc when it can
(build_compiled.py): extension modules beside their sources, which Python imports in preference to
the `.py` files. Edit a rule afterwards and the extension would silently go on running the old
rule. So, before any engine module loads, `engines/__init__.py` calls `guard()`: when the build's
stamp (`engines/.compiled.json`, the hash of every engine source at build time) no longer matches
the sources, or `ARENA_PURE_ENGINES=1` is set, every module under engines/ is imported from its
source instead, and a stale build says so once on stderr. Hashing the sources takes about 3 ms.

It is all or nothing: compiled modules call each other natively, so a fresh module beside a stale
one would still run the stale one's code.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from importlib.abc import PathEntryFinder
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    SOURCE_SUFFIXES,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)
from pathlib import Path

ENGINES = Path(__file__).resolve().parent
STAMP = ENGINES / ".compiled.json"
FORCE_PURE = "ARENA_PURE_ENGINES"
"""Set to 1 to run the pure-Python engines even beside a fresh build (benchmarks compare both)."""


def source_digest(path: Path) -> str:
    """The hash the stamp records for one source file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stale_modules(stamp: Path = STAMP) -> list[str]:
    """Modules under engines/ whose source changed since the build (empty when fresh or not
    built): the compiled ones would run their old code, and mypyc read the others."""
    if not stamp.exists():
        return []
    recorded: dict[str, str] = json.loads(stamp.read_text())
    root = stamp.parent.parent
    out = []
    for module, digest in recorded.items():
        source = root.joinpath(*module.split(".")).with_suffix(".py")
        if not source.exists() or source_digest(source) != digest:
            out.append(module)
    return out


def import_sources_only(directory: Path = ENGINES) -> None:
    """From now on, import every module under `directory` from its source, ignoring extension
    modules beside it. Directories elsewhere keep the usual finders."""
    prefix = str(directory)
    source_only = FileFinder.path_hook(
        (SourceFileLoader, SOURCE_SUFFIXES), (SourcelessFileLoader, BYTECODE_SUFFIXES)
    )

    def hook(path: str) -> PathEntryFinder:
        if path == prefix or path.startswith(prefix + os.sep):
            return source_only(path)
        raise ImportError("not under engines/: the usual finders")

    sys.path_hooks.insert(0, hook)
    for path in [p for p in sys.path_importer_cache if p.startswith(prefix)]:
        del sys.path_importer_cache[path]


def guard(stamp: Path = STAMP, directory: Path = ENGINES) -> None:
    """Run the pure modules when asked to, or when the compiled build is stale (and say so)."""
    if os.environ.get(FORCE_PURE) == "1":
        import_sources_only(directory)
        return
    stale = stale_modules(stamp)
    if stale:
        import_sources_only(directory)
        shown = ", ".join(stale[:3]) + (f" and {len(stale) - 3} more" if len(stale) > 3 else "")
        sys.stderr.write(
            f"arena: the compiled engines are older than {shown}; running pure Python "
            "(`make install` rebuilds them, `make clean-compiled` removes them)\n"
        )
