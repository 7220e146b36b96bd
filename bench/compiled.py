"""Benchmark: the mypyc-compiled engines (`make compiled`) against the pure-Python ones, same run.

Both builds are timed from the same checkout: a child process per side plays random matches of
each game at every seat count (`bench/engines.py`'s `play_ours`: process CPU time per decision),
the pure side with the compiled modules hidden from its imports (`pure_python_engines`). The
sides alternate, in the order ABBA over the rounds so that a drift in load hits both alike; the
tables give each side's median µs/decision over the rounds and the median of the per-round
ratios (pure / compiled: above 1 = the compiled build is faster). Needs a build in place.

    .venv/bin/python bench/compiled.py [--rounds 6] [--matches 10] [--games hart,crossing,loyang]
    .venv/bin/python bench/compiled.py --pure SCRIPT [ARGS...]   (run SCRIPT on the pure modules,
        e.g. bench/fingerprint.py, to compare its output with a run on the compiled ones)
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def pure_python_engines() -> None:
    """Import every module under engines/ from its source, ignoring compiled modules beside it
    (engines/build_guard.py). Must run before anything imports `engines`."""
    os.environ["ARENA_PURE_ENGINES"] = "1"


def compiled_modules() -> list[str]:
    """The engines' modules loaded from a compiled extension in this process."""
    return sorted(
        name
        for name, module in list(sys.modules.items())
        if name.startswith("engines.")
        and not name.endswith("__mypyc")  # the build's shared library, not an engine module
        and str(getattr(module, "__file__", "")).endswith(".so")
    )


def child(side: str, games: Sequence[str], matches: int, first_seed: int) -> None:
    """Time every game at every seat count on one side; print the figures as one JSON line."""
    if side == "pure":
        pure_python_engines()
    sys.path.insert(0, str(ROOT))
    from bench.engines import load_games, play_ours  # after the finders are set

    out: dict[str, dict[str, list[float]]] = {}
    for name, rules in load_games(list(games)):
        if isinstance(rules, str):
            raise SystemExit(f"{name}: {rules}")
        out[name] = {}
        for seats in rules.seat_counts:
            figures = play_ours(rules, seats, matches, first_seed=first_seed)
            out[name][str(seats)] = [figures.seconds, figures.decisions, figures.wall]
    print(json.dumps({"side": side, "compiled": len(compiled_modules()), "figures": out}))


def run_side(side: str, games: Sequence[str], matches: int, first_seed: int) -> dict[str, Any]:
    """One child's figures."""
    command = [sys.executable, __file__, "--child", side, "--games", ",".join(games)]
    command += ["--matches", str(matches), "--first-seed", str(first_seed)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def per_decision(figures: dict[str, list[float]], seats: str | None = None) -> float:
    """µs per decision over every seat count (or one)."""
    rows = [figures[seats]] if seats is not None else list(figures.values())
    return sum(r[0] for r in rows) / sum(r[1] for r in rows) * 1e6


def table(rounds: list[dict[str, Any]], games: Sequence[str]) -> list[tuple[Any, ...]]:
    """(label, pure median, compiled median, median of per-round ratios, min ratio, max ratio)
    of every game over all its seat counts, then at each seat count."""
    lines = []
    for game in games:
        for seats in [None, *rounds[0]["pure"]["figures"][game]]:
            pure, comp, ratio = [], [], []
            for r in rounds:
                p = per_decision(r["pure"]["figures"][game], seats)
                c = per_decision(r["compiled"]["figures"][game], seats)
                pure.append(p)
                comp.append(c)
                ratio.append(p / c)
            label = f"{game} (all seats)" if seats is None else f"{game} {seats}"
            lines.append(
                (
                    label,
                    statistics.median(pure),
                    statistics.median(comp),
                    statistics.median(ratio),
                    min(ratio),
                    max(ratio),
                )
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Alternate the two sides over the rounds; print the medians and the ratios."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--pure"]:
        if len(argv) < 2:
            raise SystemExit("--pure needs a script to run")
        pure_python_engines()
        sys.argv = argv[1:]
        sys.path.insert(0, str(ROOT))
        runpy.run_path(argv[1], run_name="__main__")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6, help="rounds of both sides (default 6)")
    parser.add_argument("--matches", type=int, default=10, help="matches per seat count a side")
    parser.add_argument("--games", default="hart,crossing,loyang")
    parser.add_argument("--child", choices=("pure", "compiled"), help=argparse.SUPPRESS)
    parser.add_argument("--first-seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    if args.child:
        child(args.child, games, args.matches, args.first_seed)
        return 0

    print(__doc__.split("\n\n")[0])
    load_before = os.getloadavg()
    began = time.perf_counter()
    rounds: list[dict[str, Any]] = []
    for index in range(args.rounds):
        order = ("pure", "compiled") if index % 4 in (0, 3) else ("compiled", "pure")
        seed = 1000 * index
        results = {side: run_side(side, games, args.matches, seed) for side in order}
        if not results["compiled"]["compiled"]:
            print("No compiled modules in place: run `make compiled` first.")
            return 1
        if results["pure"]["compiled"]:
            raise SystemExit("the pure side imported compiled modules")
        rounds.append(results)
        print(f"round {index + 1}/{args.rounds} done ({' then '.join(order)})", flush=True)
    compiled = rounds[0]["compiled"]["compiled"]
    print(
        f"\n{args.rounds} rounds x {args.matches} matches per game and seat count, each side; "
        f"{compiled} engine modules compiled. Load average {load_before[0]:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after ({os.cpu_count()} cores); "
        f"{time.perf_counter() - began:.0f} s."
    )
    print(f"{'':24}{'pure us/dec':>13}{'compiled':>10}{'speed-up':>10}{'  (min..max)':>14}")
    for label, pure, comp, ratio, low, high in table(rounds, games):
        print(f"{label:<24}{pure:>13.1f}{comp:>10.1f}{ratio:>9.2f}x  ({low:.2f}..{high:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
