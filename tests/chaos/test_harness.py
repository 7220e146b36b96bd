"""The soak harness itself: a service process that exits with no fault to kill it is a
violation (`processes-alive`), one that a fault killed is not."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from chaos_arena import Child  # noqa: E402


def _child(tmp_path: Path, name: str, code: str) -> Child:
    child = Child(name, ["-c", code], {}, tmp_path / f"{name}.log")
    child.start()
    return child


def test_a_process_that_exits_by_itself_has_died(tmp_path: Path) -> None:
    crashed = _child(tmp_path, "crashed", "raise SystemExit(3)")
    assert crashed.process is not None and crashed.process.wait(30) == 3
    assert crashed.died


def test_a_process_a_fault_killed_has_not_died_until_it_is_restarted(tmp_path: Path) -> None:
    sleeper = _child(tmp_path, "sleeper", "import time; time.sleep(60)")
    assert not sleeper.died, "it runs"
    sleeper.kill()
    assert not sleeper.alive and not sleeper.died, "a fault killed it"
    sleeper.args = ["-c", "raise SystemExit(1)"]
    sleeper.start()
    assert sleeper.process is not None and sleeper.process.wait(30) == 1
    assert sleeper.died, "restarted, it exited by itself"


def test_a_refusal_to_start_is_restarted_as_a_supervisor_would(tmp_path: Path) -> None:
    from chaos_arena import Arena

    arena = Arena(tmp_path / "arena")
    marker = tmp_path / "started-once"
    # Exit 5 (a server it needs is down) the first time, then run.
    code = (
        "import pathlib, sys, time\n"
        f"m = pathlib.Path({str(marker)!r})\n"
        "if not m.exists():\n"
        "    m.touch(); sys.exit(5)\n"
        "time.sleep(60)\n"
    )
    refusing = _child(tmp_path, "refusing", code)
    crashing = _child(tmp_path, "crashing", "raise SystemExit(6)")
    arena.others = [refusing, crashing]
    try:
        assert refusing.process is not None and refusing.process.wait(30) == 5
        assert crashing.process is not None and crashing.process.wait(30) == 6
        assert [line.split()[0] for line in arena.died()] == ["crashing"]
        assert arena.supervise() == ["refusing"]
        assert refusing.alive and arena.supervise() == []
    finally:
        refusing.kill()
