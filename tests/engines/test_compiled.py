"""The engines work whichever way they are built: pure Python, or compiled in place by mypyc.

`make compiled` (build_compiled.py) drops extension modules beside some engine sources; nothing
here needs a compiler. Pure, the compiled-only checks skip and say so. Compiled, they check that
the build is fresh (no source edited since, which its stale module would silently ignore) and
that seeded play is identical to the pure modules' (bench/fingerprint.py on both sides).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import engines
from engines import HashRng, build_guard
from engines.driver import MatchDriver
from engines.registry import BUILTIN_GAMES

ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compiled_modules() -> list[str]:
    """The engine modules this process loaded from a compiled extension."""
    for game in BUILTIN_GAMES:
        engines.get(game)
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("engines.")
        and not name.endswith("__mypyc")
        and str(getattr(module, "__file__", "")).endswith(".so")
    )


@pytest.mark.parametrize("game", BUILTIN_GAMES)
def test_every_game_plays_a_seeded_match_to_its_end(
    game: str, record_property: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = engines.get(game)
    seats = rules.seat_counts[-1]
    driver: MatchDriver[Any, Any] = MatchDriver(rules, seats, {}, 30)
    for decision in driver.run():
        assert decision.number < 20_000, "no end in 20,000 decisions"
        driver.play(
            {
                s: driver.space(s).sample(HashRng(30, f"t:{decision.number}:{s}"))
                for s in decision.seats
            }
        )
    assert driver.outcome() is not None
    built = [m for m in compiled_modules() if m.startswith(f"engines.{game}.")]
    record_property("compiled_modules", len(built))
    with capsys.disabled():
        print(f" [{game}: {f'{len(built)} modules compiled' if built else 'pure Python'}]", end="")


def test_a_compiled_build_in_place_is_fresh() -> None:
    build = _load(ROOT / "build_compiled.py")
    if not build.STAMP.exists():
        pytest.skip("pure Python engines: no `make compiled` build in place")
    stale = build.stale()
    assert not stale, f"edited since `make compiled` (rebuild, or `make clean-compiled`): {stale}"
    loaded = set(compiled_modules())
    if os.environ.get(build_guard.FORCE_PURE) == "1":  # asked for pure beside a fresh build
        assert not loaded, f"{build_guard.FORCE_PURE}=1, yet compiled modules loaded: {loaded}"
        return
    recorded = {build._module(p) for p in build.compiled_sources()}
    assert recorded <= loaded, f"built but imported from source: {sorted(recorded - loaded)}"


def test_compiled_engines_play_exactly_as_the_pure_ones() -> None:
    if not compiled_modules():
        pytest.skip("pure Python engines: no `make compiled` build in place")
    fingerprint = [sys.executable, "bench/fingerprint.py", "--seeds", "1"]
    compiled, pure = (
        subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
        for command in (
            fingerprint,
            [sys.executable, "bench/compiled.py", "--pure", *fingerprint[1:]],
        )
    )
    assert compiled.count("\n") == len(BUILTIN_GAMES)
    assert compiled == pure
