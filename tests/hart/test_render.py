"""The match log: every public step is told, in order, with plain text when colour is off."""

from __future__ import annotations

from arena.render import Paint, final_lines, step_lines
from arena.sdk.bots.base import RandomStrategy, Strategy
from arena.sdk.bots.hart import HartHeuristic
from arena.sdk.local import play_local
from tests.hart.build import RULES


def test_log_tells_the_whole_match() -> None:
    paint = Paint(enabled=False)
    lines: list[str] = []

    def show(before, decision, joint, after, events) -> None:  # type: ignore[no-untyped-def]
        lines.extend(step_lines(RULES, before, decision, joint, after, paint, events))

    bots: list[Strategy] = [
        HartHeuristic(),
        RandomStrategy(),
        RandomStrategy(),
        RandomStrategy(),
        RandomStrategy(),
    ]
    match = play_local("hart", bots, 7, on_step=show)
    text = "\n".join(lines)
    assert lines[0].startswith("── Round 1, turn 1: sheriff seat ")
    assert text.count("── Round ") == 15
    for needle in ("packs: ", " declares ", "Open up!", " opens ", " sells ", " keeps "):
        assert needle in text, needle
    for rnd in (1, 2, 3):
        assert f"Money after round {rnd}:" in text
    assert "end sale of" in text and "\x1b[" not in text
    closing = final_lines(RULES, match.final, match.outcome, paint)
    assert closing[0] == "Final money:"
    assert any(line.startswith("  1. seat ") for line in closing)
