"""A compiled build never runs code older than its sources (engines/build_guard.py).

The guard's parts are tried on a package made here, with a junk extension module beside a
source: Python prefers the extension (so a plain import fails), and the guard's source-only
import does not. Each import runs in a child process, so this process's finders stay as they were.
On a real build (CI's first pass), `ARENA_PURE_ENGINES=1` must load no compiled module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from engines.build_guard import source_digest, stale_modules

ROOT = Path(__file__).resolve().parents[2]


def _package(tmp_path: Path) -> Path:
    """tmp/engines/ with rules.py (VALUE = 1), a junk extension of the same module beside it,
    and a stamp that matches the sources."""
    package = tmp_path / "engines"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("VALUE = 1\n")
    (package / f"rules{sysconfig.get_config_var('EXT_SUFFIX')}").write_bytes(b"not an ELF file")
    stamp = {f"engines.{p.stem}": source_digest(p) for p in sorted(package.glob("*.py"))}
    (package / ".compiled.json").write_text(json.dumps(stamp))
    return package


def _child(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_PURE_ENGINES"}
    script = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\n" + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False
    )


def test_the_stamp_names_every_source_edited_or_removed_since_the_build(tmp_path: Path) -> None:
    package = _package(tmp_path)
    stamp = package / ".compiled.json"
    assert stale_modules(stamp) == []
    (package / "rules.py").write_text("VALUE = 2\n")
    assert stale_modules(stamp) == ["engines.rules"]
    (package / "__init__.py").unlink()
    assert stale_modules(stamp) == ["engines.__init__", "engines.rules"]
    assert stale_modules(tmp_path / "no-stamp.json") == []


def test_an_extension_beside_its_source_wins_unless_sources_only(tmp_path: Path) -> None:
    _package(tmp_path)
    plain = _child(tmp_path, "import engines.rules")
    assert plain.returncode != 0 and "ImportError: " in plain.stderr, plain.stderr
    assert "rules" + sysconfig.get_config_var("EXT_SUFFIX") in plain.stderr, plain.stderr
    guarded = _child(
        tmp_path,
        f"""
        from pathlib import Path
        import importlib.util
        spec = importlib.util.spec_from_file_location("g", {str(ROOT / "engines/build_guard.py")!r})
        g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)
        g.import_sources_only(Path({str(tmp_path / "engines")!r}))
        import engines.rules
        print(engines.rules.VALUE, engines.rules.__file__.endswith(".py"))
        """,
    )
    assert guarded.returncode == 0, guarded.stderr
    assert guarded.stdout.split() == ["1", "True"]


def test_a_stale_build_runs_the_sources_and_says_so_in_one_line(tmp_path: Path) -> None:
    package = _package(tmp_path)
    (package / "rules.py").write_text("VALUE = 2\n")
    code = f"""
        from pathlib import Path
        import importlib.util
        spec = importlib.util.spec_from_file_location("g", {str(ROOT / "engines/build_guard.py")!r})
        g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)
        package = Path({str(package)!r})
        g.guard(package / ".compiled.json", package)
        import engines.rules
        print(engines.rules.VALUE)
        """
    stale = _child(tmp_path, code)
    assert stale.returncode == 0, stale.stderr
    assert stale.stdout.split() == ["2"]
    assert stale.stderr.count("\n") == 1
    assert "compiled engines are older than engines.rules; running pure Python" in stale.stderr


def test_arena_pure_engines_loads_no_compiled_module_beside_a_build() -> None:
    if not (ROOT / "engines" / ".compiled.json").exists():
        pytest.skip("pure Python engines: no compiled build in place to hide")
    code = """
        import sys
        import engines
        from engines.registry import BUILTIN_GAMES
        for game in BUILTIN_GAMES:
            engines.get(game)
        print(sum(str(getattr(m, "__file__", "")).endswith(".so")
                  for n, m in list(sys.modules.items()) if n.startswith("engines.")))
        """
    runs = {
        flag: subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "ARENA_PURE_ENGINES": flag},
            check=True,
        ).stdout.strip()
        for flag in ("1", "0")
    }
    assert runs["1"] == "0"
    assert int(runs["0"]) > 0
