"""Benchmark: the OpenSpiel adapter's cost per decision against OpenSpiel's own loop, same run.

For each curated game, random matches are played twice over the same seeds, in alternating slices
so that both sides meet the same load: once through Arena (`MatchDriver` over the adapter: the
decision, the legal actions as OpenSpiel's action strings, the seat's choice, `apply` with chance
drawn from the seeded stream) and once as the bare OpenSpiel loop (`legal_actions()`, a uniform
choice, `apply_action(s)`, chance drawn with `random.Random`). A decision is a player node (a
simultaneous node counts once). Times are CPU time; the ratio is what to compare across runs.

    .venv/bin/python bench/openspiel_adapter.py [--matches N] [--games kuhn_poker,goofspiel]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the repository root is what makes `engines` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines
from engines.driver import MatchDriver
from engines.registry import openspiel_names


def ours(rules: Any, seed: int) -> tuple[float, int, str]:
    """(CPU seconds, decisions, OpenSpiel's game name) of one random match through the adapter."""
    pick = random.Random(seed)
    began = time.process_time()
    driver: MatchDriver[Any, Any] = MatchDriver(rules, min(rules.seat_counts), {}, seed)
    count = 0
    for decision in driver.run():
        joint = {}
        for seat in sorted(decision.seats):
            listing = driver.space(seat).listing(limit=1 << 30)  # go on 19x19 offers 362
            joint[seat] = listing[pick.randrange(len(listing))]
        driver.play(joint)
        count += 1
    return time.process_time() - began, count, driver.state.game


def bare(game: Any, seed: int) -> tuple[float, int]:
    """(CPU seconds, decisions) of one random match in OpenSpiel's own loop."""
    rnd = random.Random(seed)
    began = time.process_time()
    state = game.new_initial_state()
    count = 0
    while not state.is_terminal():
        if state.is_chance_node():
            point = rnd.random()
            outcomes = state.chance_outcomes()
            action = outcomes[-1][0]
            for outcome, probability in outcomes:
                point -= probability
                if point < 0:
                    action = outcome
                    break
            state.apply_action(action)
            continue
        count += 1
        if state.is_simultaneous_node():
            joint = []
            for player in range(game.num_players()):
                legal = state.legal_actions(player)
                joint.append(legal[rnd.randrange(len(legal))])
            state.apply_actions(joint)
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rnd.randrange(len(legal))])
    return time.process_time() - began, count


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="matches per game (default 200)")
    parser.add_argument("--games", default="", help="comma-separated OpenSpiel names (default all)")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # imported here: the wheel is optional and the error below says so
    except ImportError:
        print("OpenSpiel is not installed: `.venv/bin/pip install -e '.[openspiel]'`")
        return 1
    wanted = [f"openspiel/{g.strip()}" for g in args.games.split(",") if g.strip()]
    print(__doc__.split("\n\n")[0])
    print()
    print(f"{'game':<32}{'decisions':>10}{'adapter us':>12}{'bare us':>10}{'ratio':>8}")
    ratios = []
    for name in wanted or openspiel_names():
        rules = engines.get(name)
        mine = [0.0, 0]
        theirs = [0.0, 0]
        for seed in range(args.matches):
            seconds, count, full_name = ours(rules, seed)
            mine[0] += seconds
            mine[1] += count
            seconds, count = bare(pyspiel.load_game(full_name), seed)
            theirs[0] += seconds
            theirs[1] += count
        us_mine = mine[0] / mine[1] * 1e6
        us_bare = theirs[0] / theirs[1] * 1e6
        ratios.append(us_mine / us_bare)
        print(f"{name:<32}{mine[1]:>10}{us_mine:>12.1f}{us_bare:>10.1f}{us_mine / us_bare:>7.1f}x")
    if ratios:
        print(f"Adapter over the bare loop: {min(ratios):.1f}x-{max(ratios):.1f}x per decision.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
