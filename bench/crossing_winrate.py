"""Benchmark: the Double Crossing heuristic against three random bots over 500 seeded games.

Game i uses seed i, with the heuristic in seat i % 4. Prints the win rate (sole first place),
how many wins came by returning to Central Station rather than at the turn cap, and the time.

    .venv/bin/python bench/crossing_winrate.py [--games 500]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.crossing.winrate import heuristic_win_rate


def main() -> int:
    """Play the games and print the rate."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args()
    started = time.process_time()
    result = heuristic_win_rate(args.games)
    seconds = time.process_time() - started
    print(
        f"crossing heuristic vs 3 random: {result.wins}/{result.games} wins "
        f"= {result.rate:.1%} ({result.at_central} at Central Station, the rest at the turn cap); "
        f"{result.bad_answers} bad answers; {seconds:.0f} s CPU"
    )
    return 0 if result.rate > 0.25 and result.bad_answers == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
