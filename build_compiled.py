"""Compile the rules engines' hot modules with mypyc, in place (issue 30).

    .venv/bin/python build_compiled.py --if-possible  # `make install`: build, or stay pure
    .venv/bin/python build_compiled.py            # `make compiled`: build, fail loudly
    .venv/bin/python build_compiled.py --clean    # `make clean-compiled`: back to pure Python
    .venv/bin/python build_compiled.py --list     # what is compiled, what is not and why

`make install` builds when a C compiler is present (1.5-2 min on 2 cores), and again whenever an
engine source changed; `make install COMPILE=0` keeps (or makes) the engines pure. The engines
stay pure Python: the build only drops C extension modules next to their sources
(`engines/<game>/<module>.cpython-*.so`, plus the shared `engines/native__mypyc.*.so`), which
Python imports in preference to the `.py` files. Removing them (`--clean`) restores the pure
modules; nothing else changes. The outputs are git-ignored, and CI runs the whole suite on each
build. A stamp (`engines/.compiled.json`) records the hash of every source under engines/: when a
source was edited after the build, `engines` imports every module from source and says so
(engines/build_guard.py), and tests/engines/test_compiled.py fails.

The rule logic of the three games is compiled, and the shared modules every decision runs
through (`SHARED`). The modules left out, and why, are in `NOT_COMPILED`; bench/compiled.py
measures what the build pays (figures in bench/README.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent
GAMES = ("hart", "crossing", "loyang")
GROUP = "engines.native"
"""mypyc's group: its shared library is `engines/native__mypyc.*.so`, inside the package, so
the editable install (which maps packages, not the repository root) finds it."""
STAMP = ROOT / "engines" / ".compiled.json"
BUILD = ROOT / "build" / "mypyc"

NOT_COMPILED: dict[str, str] = {
    "engines/__init__.py": "the contract's re-exports and lazy loading; nothing to run",
    "engines/api.py": "slotted frozen dataclasses (mypyc rejects `slots=True`); the contract "
    "classes that games, tests and the OpenSpiel adapter subclass in Python",
    "engines/move.py": "a slotted frozen dataclass (`Move`); built through its slot setters",
    "engines/options.py": "a slotted frozen dataclass",
    "engines/record.py": "a slotted frozen dataclass",
    "engines/spaces.py": "slotted frozen dataclasses (subclasses of api.ActionSpace)",
    "engines/registry.py": "imports the OpenSpiel games; not on the per-decision path",
    "engines/errors.py": "exception classes that Python code subclasses; raised, not run",
    "engines/replay.py": "not on the per-decision path",
    "engines/action_json.py": "the referee's answer parser, not the engines' path",
    "engines/json_value.py": "a type alias; nothing to run",
    "engines/openspiel": "the OpenSpiel adapter: its cost is in pyspiel, not in Python",
    "*/__init__.py": "a game's registration; nothing to run per decision",
    "*/rules.py": "`Rules` subclasses: methods replaced by `staticmethod(...)` class attributes "
    "crash mypyc's vtable builder (KeyError in specialize_parent_vtable)",
    "*/state.py": "slotted frozen dataclasses built through their slot setters (engines.frozen)",
    "*/actions.py": "slotted frozen dataclasses",
    "engines/crossing/components.py": "slotted frozen dataclasses",
    "*/scenario.py": "slotted frozen dataclasses; test scenarios, not the per-decision path",
    "engines/hart/data.py": "slotted frozen dataclasses",
    "engines/hart/wire.py": "its docstring is the documented wire form, which tests read; a "
    "compiled module has no `__doc__`",
    "engines/loyang/wire.py": "its docstring is the documented wire form, which tests read",
    "engines/loyang/cards.py": "slotted frozen dataclasses",
}
"""Modules left in pure Python: path (or `*/name` in every game) and why."""


def _excluded(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return any(
        rel == key or rel.startswith(key + "/") or (key.startswith("*/") and path.name == key[2:])
        for key in NOT_COMPILED
    )


SHARED = ("driver", "frozen", "rng")
"""The shared modules on every decision's path that are compiled too: the match loop, the
builders of the values a step returns, and the chance streams."""


def compiled_sources() -> list[Path]:
    """The modules the build compiles: every module of the three games not left out, and the
    shared ones of `SHARED`."""
    found = [p for game in GAMES for p in sorted((ROOT / "engines" / game).glob("*.py"))]
    shared = [ROOT / "engines" / f"{name}.py" for name in SHARED]
    return [p for p in found if not _excluded(p)] + shared


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _guard() -> ModuleType:
    """engines/build_guard.py, loaded from its file: importing the `engines` package would run
    the guard itself (and a build is stale by design just before it is rebuilt)."""
    spec = importlib.util.spec_from_file_location("build_guard", ROOT / "engines/build_guard.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outputs() -> list[Path]:
    """The extension modules a build left under engines/ (and the stamp)."""
    return sorted((ROOT / "engines").rglob("*.so")) + ([STAMP] if STAMP.exists() else [])


def clean() -> int:
    """Remove every compiled module, the stamp and the build directory: pure Python again."""
    removed = outputs()
    for path in removed:
        path.unlink()
    shutil.rmtree(BUILD, ignore_errors=True)
    print(f"removed {len(removed)} compiled files; the engines are pure Python")
    return 0


def build() -> int:
    """Compile `compiled_sources()` in place with mypyc; write the stamp."""
    compiler = sysconfig.get_config_var("CC") or "cc"
    if shutil.which(compiler.split()[0]) is None:
        print(f"no C compiler ({compiler}): the engines stay pure Python", file=sys.stderr)
        return 1
    try:
        # Imported here: mypyc (with mypy, a dev dependency) and setuptools are build-time only.
        from mypyc.build import mypycify
        from setuptools import setup
    except ImportError as missing:
        print(f"cannot build: {missing} (run `make install` first)", file=sys.stderr)
        return 1
    clean()
    sources = compiled_sources()
    rel = [p.relative_to(ROOT).as_posix() for p in sources]
    # mypyc runs mypy on these paths relative to the root, with pyproject.toml's settings.
    os.chdir(ROOT)
    modules = mypycify(rel, opt_level="3", group_name=GROUP, target_dir=str(BUILD / "c"))
    setup(
        name="arena-compiled-engines",
        ext_modules=modules,
        script_args=[
            "-q",
            "build_ext",
            "--inplace",
            "--build-temp",
            str(BUILD / "temp"),
            "--build-lib",
            str(BUILD / "lib"),
            "--parallel",
            str(os.cpu_count() or 1),
        ],
    )
    # Every source under engines/, not only the compiled ones: mypyc bakes in what it read of the
    # others (`Final` constants, signatures), so any edit there may need a rebuild too.
    stamped = sorted((ROOT / "engines").rglob("*.py"))
    digest = _guard().source_digest
    STAMP.write_text(
        json.dumps({_module(p): digest(p) for p in stamped}, indent=1, sort_keys=True) + "\n"
    )
    print(f"compiled {len(sources)} modules in place; `make clean-compiled` removes them")
    return 0


def build_if_possible() -> int:
    """`make install`'s build: any failure leaves the pure modules in place, says why in one
    line and exits 0, since the pure engines are the fallback, not an error."""
    # Touched, not edited (a checkout, a merge): nothing to build. An edit of this script (what
    # is compiled, and how) is newer than the stamp, so it does rebuild.
    script = Path(__file__).stat().st_mtime
    if STAMP.exists() and STAMP.stat().st_mtime >= script and not stale():
        print("the compiled engines match their sources: nothing to build")
        return 0
    try:
        build()  # returns 1 with no compiler or no mypyc, said on stderr before touching a file
    except (Exception, SystemExit) as failure:  # setuptools exits on a compiler error
        clean()
        print(f"note: the mypyc build failed ({failure}); the engines stay pure Python")
    return 0


def stale() -> list[str]:
    """Modules under engines/ whose source changed since the build (empty when fresh or not
    built); `engines` itself runs pure Python then (engines/build_guard.py)."""
    return list(_guard().stale_modules(STAMP))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--list", action="store_true", help="print what is and is not compiled")
    parser.add_argument(
        "--if-possible",
        action="store_true",
        help="`make install`: build when a compiler is here, else stay pure Python (exit 0)",
    )
    args = parser.parse_args(argv)
    if args.clean:
        return clean()
    if args.if_possible:
        return build_if_possible()
    if args.list:
        for path in compiled_sources():
            print(f"compiled      {_module(path)}")
        for key, why in NOT_COMPILED.items():
            print(f"not compiled  {key}: {why}")
        return 0
    return build()


if __name__ == "__main__":
    raise SystemExit(main())
