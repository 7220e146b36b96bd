"""A seat's rows change only through `Work`'s methods, which note the seat for `freeze`.

`engines/crossing/work.py` builds new players only for the seats its methods noted, so a rule that
wrote `w.money[seat] += n` directly would have its change silently dropped from the next state.
This reads every rule module and fails on such a write outside work.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "engines" / "crossing"
SEAT_ROWS = {"position", "money", "rack", "hand", "contracts"}


def direct_writes(source: str, name: str) -> list[str]:
    """Assignments (plain or augmented) to `X.<seat row>[...]` in `source`."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign)
            else []
        )
        for target in targets:
            if (
                isinstance(target, ast.Subscript)
                and isinstance(target.value, ast.Attribute)
                and target.value.attr in SEAT_ROWS
            ):
                found.append(f"{name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_rule_module_writes_a_seat_row_directly() -> None:
    offenders = [
        line
        for path in sorted(RULES.glob("*.py"))
        if path.name != "work.py"
        for line in direct_writes(path.read_text(), path.name)
    ]
    assert offenders == [], "use Work.add_money / place / add_cars / ...:\n" + "\n".join(offenders)


def test_the_check_sees_a_direct_write() -> None:
    source = "def f(w, s):\n    w.money[s] += 3\n    w.position[s] = 4\n    w.yards = 1\n"
    assert direct_writes(source, "x.py") == [
        "x.py:2: w.money[s] += 3",
        "x.py:3: w.position[s] = 4",
    ]
