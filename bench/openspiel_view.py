"""Benchmark: what the typed `OpenSpielView` costs the referee per decision request.

For a few OpenSpiel games, the first decision's request of seat 0 is built by the referee's own
`requests.decision_request` in each payload form a bot may ask for: JSON only (the baseline, what
every OpenSpiel request was before the typed view), typed only, and both (the protocol's default,
PAYLOAD_FORM_UNSPECIFIED). Printed per game and form: microseconds per request (the best of the
repeats), its size on the wire, and the ratio to JSON only in the same run.

    .venv/bin/python bench/openspiel_view.py [--games leduc_poker,hearts,go] [--number N]
"""

from __future__ import annotations

import argparse
import sys
import timeit
from datetime import timedelta
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines
from arena.referee.requests import decision_request
from arena.v1 import bot_pb2
from engines.driver import MatchDriver

FORMS = (
    ("json", bot_pb2.PAYLOAD_FORM_JSON),
    ("typed", bot_pb2.PAYLOAD_FORM_TYPED),
    ("both", bot_pb2.PAYLOAD_FORM_UNSPECIFIED),
)


def measure(game: str, number: int) -> list[tuple[str, float, int]]:
    """(form, microseconds per request, bytes) of the first decision of `game`, seat 0's view."""
    rules = engines.get(game)
    driver = MatchDriver(rules, min(rules.seat_counts), dict(rules.conformance_options), 1)
    decision = driver.decision
    assert decision is not None
    seat = min(decision.seats)
    view, space = driver.view(seat), driver.space(seat)
    out = []
    for name, form in FORMS:

        def build(form: bot_pb2.PayloadForm.ValueType = form) -> bot_pb2.DecisionRequest:
            request, _ = decision_request(
                1, rules, view, decision, seat, timedelta(seconds=1), timedelta(0),
                space=space, form=form,
            )  # fmt: skip
            return request

        best = min(timeit.repeat(build, number=number, repeat=5)) / number
        out.append((name, best * 1e6, build().ByteSize()))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="leduc_poker,hearts,go")
    parser.add_argument("--number", type=int, default=500, help="requests per repeat")
    args = parser.parse_args(argv)
    print(f"{'game':<14} {'tensor':>6} {'form':<6} {'us/request':>10} {'bytes':>7} {'x json':>7}")
    for short in args.games.split(","):
        game = f"openspiel/{short}"
        rows = measure(game, args.number)
        rules = engines.get(game)
        driver = MatchDriver(rules, min(rules.seat_counts), dict(rules.conformance_options), 1)
        tensor = len(driver.view(0).get("tensor") or [])
        base = rows[0][1]
        for name, micros, size in rows:
            ratio = micros / base
            print(f"{short:<14} {tensor:>6} {name:<6} {micros:>10.1f} {size:>7} {ratio:>7.2f}")


if __name__ == "__main__":
    main()
