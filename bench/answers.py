"""Benchmark: the cost of reading a bot's answer through the hardened boundary, against a baseline.

The baseline, timed in the same run, is what the referee did before: a bare `json.loads` and the
game's `parse_action`. The hardened path is `arena.referee.answers.to_action` without the
legality check (bounded JSON decode, the parser, the catch-all). Also timed: the worst answer a
bot can send within the bounds (64 KiB, 1,000 brackets), scanned and refused before decoding.
Each timing is the best of a few repeats; the ratio is the number to compare across runs.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines
from arena.referee import answers
from arena.v1 import bot_pb2
from engines import InvalidAction
from engines.action_json import MAX_WIRE_CHARS

ROUNDS = 20_000


def best(call: Callable[[], object], rounds: int = ROUNDS, repeats: int = 5) -> float:
    """Best mean seconds per call over `repeats` runs of `rounds` calls."""
    out = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        for _ in range(rounds):
            call()
        out = min(out, (time.perf_counter() - began) / rounds)
    return out


def main() -> None:
    rules = engines.get("hart")
    text = json.dumps({"type": "pack", "goods": ["jug", "jug", "maracas"]})
    answer = bot_pb2.Action(json=text)

    def baseline() -> object:
        return rules.parse_action(0, json.loads(text))

    def hardened() -> object:
        return answers._parse(rules, 0, 0, answer, ())

    junk = bot_pb2.Action(json=("[" * 500 + "]" * 500) + " " * (MAX_WIRE_CHARS - 1000))

    def worst() -> object:
        try:
            return answers._parse(rules, 0, 0, junk, ())
        except InvalidAction as exc:
            return exc

    before, after = best(baseline), best(hardened)
    refused = best(worst, rounds=50)
    print(f"typical answer, bare json.loads + parse_action: {before * 1e6:8.2f} us")
    print(f"typical answer, hardened boundary:              {after * 1e6:8.2f} us")
    print(f"ratio hardened / baseline:                      {after / before:8.2f}")
    print(f"worst answer within bounds (64 KiB, 500 deep), refused: {refused * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
