"""Benchmark: random play of every engine, against OpenSpiel's random play timed in the same run.

For each game and seat count it plays full matches with uniformly random legal actions and prints
matches per second, decisions per second and microseconds per decision. One decision is
`decision(state)`, then `legal_actions(state, seat).sample()` for every seat deciding, then
`apply` with the decision's own chance stream (so a simultaneous decision counts once, and the
chance an engine draws inside `apply` is part of its cost). Setup, the deal, is part of the match
time. OpenSpiel's games are played with the same method: `legal_actions()` and a uniform choice at
player nodes, `chance_outcomes()` and a weighted draw at chance nodes, then `apply_action()`; their
decision is a player node, with the cost of chance nodes counted in, as our `apply` does its
chance inside. Both sides pick with one `random.Random` per match. Times are the process's CPU
time, which other load on a shared machine disturbs far less than wall time (the wall-clock factor
is printed at the end); still, compare the ratios across runs, not the raw figures.

    .venv/bin/python bench/engines.py [--matches N] [--games hart,crossing] [--peer-seconds S]
        [--openspiel N]   (the OpenSpiel adapter against OpenSpiel's own loop; 0 skips it)
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

# Run as a script from anywhere: the repository root is what makes `engines` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines
from engines.driver import MatchDriver
from engines.registry import BUILTIN_GAMES

T = TypeVar("T")

MAX_DECISIONS = 200_000
"""A match longer than this is a bug in the engine, reported as a skip rather than a hang."""

PEERS: tuple[tuple[str, str], ...] = (
    ("python_kuhn_poker", "pure Python; chance + imperfect information, 2 players"),
    ("python_liars_poker", "pure Python; chance + imperfect information, 2 players"),
    ("hearts", "C++; chance deal + imperfect information, 4 players"),
    ("sheriff", "C++; bluffing and bribes like hart, imperfect information, no chance"),
)
"""OpenSpiel games to compare with: (registered name, what kind of game it is)."""

BASELINE = "python_liars_poker"
"""The peer of the headline ratio: pure Python like our engines, with chance and hidden hands."""


@dataclass(frozen=True, slots=True)
class Figures:
    """What one game at one seat count did in the timed run."""

    matches: int
    decisions: int
    """Our decisions, or OpenSpiel's player nodes."""
    nodes: int
    """Every step applied, chance nodes included (equals `decisions` for our engines)."""
    seconds: float
    """CPU time of the process while playing."""
    wall: float
    """Wall time while playing."""

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds

    @property
    def decisions_per_second(self) -> float:
        return self.decisions / self.seconds

    @property
    def us_per_decision(self) -> float:
        return self.seconds / self.decisions * 1e6

    @property
    def us_per_node(self) -> float:
        return self.seconds / self.nodes * 1e6


class PlayerRng:
    """The random players' chooser: `random.Random` behind the engines' `Rng` protocol."""

    __slots__ = ("_random",)

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        return self._random.randrange(n)

    def roll(self, sides: int = 6, count: int = 1) -> tuple[int, ...]:
        """Roll `count` dice with `sides` faces each."""
        return tuple(self._random.randrange(sides) + 1 for _ in range(count))

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """The items in a uniformly random order."""
        out = list(items)
        self._random.shuffle(out)
        return tuple(out)

    def choice(self, items: Sequence[T]) -> T:
        """One item uniformly at random."""
        return self._random.choice(items)


# -- our engines -------------------------------------------------------------------------------
def load_games(wanted: Sequence[str] | None) -> list[tuple[str, Any]]:
    """(name, rules or the error that stops it) for every built-in and registered game."""
    failed: dict[str, str] = {}
    for game in BUILTIN_GAMES:
        try:
            importlib.import_module(f"engines.{game}")
        except Exception as exc:  # a game being written may not import yet
            failed[game] = f"import failed: {type(exc).__name__}: {exc}"
    try:
        registered = set(engines.names())
    except Exception:  # the registry re-raises a failed import; what did register is enough
        registered = {g for g in BUILTIN_GAMES if g not in failed}
    names = sorted(registered | set(BUILTIN_GAMES))
    out: list[tuple[str, Any]] = []
    for name in names if wanted is None else wanted:
        if name in failed:
            out.append((name, failed[name]))
            continue
        try:
            out.append((name, engines.get(name)))
        except Exception as exc:
            why = "imported but not registered" if name in BUILTIN_GAMES else str(exc)
            out.append((name, why))
    return out


def play_ours(rules: Any, seats: int, matches: int, first_seed: int = 0) -> Figures:
    """Play `matches` random matches (seeds first_seed, first_seed + 1, ...) and time them."""
    options = rules.resolve_options({})
    decisions = 0
    seconds = wall = 0.0
    for seed in range(first_seed, first_seed + matches):
        player = PlayerRng(seed)
        began, began_wall = time.process_time(), time.perf_counter()
        driver: MatchDriver[Any, Any] = MatchDriver(rules, seats, options, seed)
        count = 0
        for decision in driver.run():
            driver.play(
                {seat: driver.space(seat).sample(player) for seat in sorted(decision.seats)}
            )
            count += 1
            if count > MAX_DECISIONS:
                raise RuntimeError(f"match of seed {seed} did not end in {MAX_DECISIONS} decisions")
        seconds += time.process_time() - began
        wall += time.perf_counter() - began_wall
        decisions += count
    return Figures(matches, decisions, decisions, seconds, wall)


# -- OpenSpiel ---------------------------------------------------------------------------------
def load_open_spiel() -> tuple[Any, str] | str:
    """(the pyspiel module, its version), or why it cannot be used."""
    try:
        pyspiel = importlib.import_module("pyspiel")
        importlib.import_module("open_spiel.python.games")  # registers the pure-Python games
    except Exception as exc:
        return (
            f"OpenSpiel is not available ({type(exc).__name__}: {exc}); "
            "install it with `.venv/bin/pip install open-spiel` or `pip install -e '.[bench]'`"
        )
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("open-spiel")
    except PackageNotFoundError:
        found = "unknown version"
    return pyspiel, found


def play_peer(pyspiel: Any, name: str, budget: float) -> Figures:
    """Play random matches of an OpenSpiel game for at least `budget` CPU seconds; time them."""
    game = pyspiel.load_game(name)
    matches = decisions = nodes = 0
    seconds = wall = 0.0
    while seconds < budget:
        rnd = random.Random(matches)
        draw, below = rnd.random, rnd.randrange
        began, began_wall = time.process_time(), time.perf_counter()
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                point = draw()
                outcomes = state.chance_outcomes()
                action = outcomes[-1][0]
                for outcome, probability in outcomes:
                    point -= probability
                    if point < 0:
                        action = outcome
                        break
            else:
                legal = state.legal_actions()
                action = legal[below(len(legal))]
                decisions += 1
            state.apply_action(action)
            nodes += 1
        seconds += time.process_time() - began
        wall += time.perf_counter() - began_wall
        matches += 1
    return Figures(matches, decisions, nodes, seconds, wall)


def interleaved(rules: Any, pyspiel: Any, rounds: int) -> tuple[float, float]:
    """(ours, the baseline peer's) us/decision, timed in alternating slices of equal CPU time.

    Load on a shared machine changes over a run; alternating a few of our matches at every seat
    count with as much CPU time of the peer exposes both to the same load, so their ratio holds
    even when the figures of the tables above drift.
    """
    ours = [0.0, 0]
    peer = [0.0, 0]
    for rnd in range(rounds):
        for seats in rules.seat_counts:
            mine = play_ours(rules, seats, 2, first_seed=1000 + 2 * rnd)
            ours[0] += mine.seconds
            ours[1] += mine.decisions
            theirs = play_peer(pyspiel, BASELINE, mine.seconds)
            peer[0] += theirs.seconds
            peer[1] += theirs.decisions
    return ours[0] / ours[1] * 1e6, peer[0] / peer[1] * 1e6


# -- report ------------------------------------------------------------------------------------
def row(cells: Sequence[object], widths: Sequence[int]) -> str:
    """One table line: the first cell left-aligned, the rest right-aligned."""
    first, *rest = (str(c) for c in cells)
    aligned = (c.rjust(w) for c, w in zip(rest, widths[1:], strict=True))
    return (first.ljust(widths[0]) + "".join(aligned)).rstrip()


def run_peers(budget: float) -> list[tuple[str, Figures]]:
    """Time every OpenSpiel peer and print its line; none when OpenSpiel is missing."""
    loaded = load_open_spiel()
    if isinstance(loaded, str):
        print(f"Peer: {loaded}")
        print("No ratios: only our own figures above.")
        return []
    pyspiel, found = loaded
    print(
        f"Peer: OpenSpiel {found}, random play for {budget:g} CPU seconds per game. "
        "decisions = player nodes; nodes include chance."
    )
    widths = (22, 9, 11, 13, 13, 11, 3)
    header = ("game", "matches", "matches/s", "decisions/s", "us/decision", "us/node", "")
    print(row(header, widths) + "  kind")
    peers: list[tuple[str, Figures]] = []
    for name, kind in PEERS:
        try:
            figures = play_peer(pyspiel, name, budget)
        except Exception as exc:
            print(f"{name:<22}  skipped: {type(exc).__name__}: {exc}")
            continue
        peers.append((name, figures))
        cells = (
            name,
            figures.matches,
            f"{figures.matches_per_second:,.1f}",
            f"{figures.decisions_per_second:,.0f}",
            f"{figures.us_per_decision:,.2f}",
            f"{figures.us_per_node:,.2f}",
            "",
        )
        print(row(cells, widths) + f"  {kind}")
    return peers


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=50, help="matches per game and seat count (default 50)"
    )
    parser.add_argument("--games", default="", help="comma-separated games (default: every game)")
    parser.add_argument(
        "--interleave",
        type=int,
        default=5,
        help=f"rounds of alternating slices against {BASELINE} (default 5; 0 skips them)",
    )
    parser.add_argument(
        "--peer-seconds",
        type=float,
        default=3.0,
        help="seconds of random play per OpenSpiel game (default 3)",
    )
    parser.add_argument(
        "--openspiel",
        type=int,
        default=20,
        help="matches per OpenSpiel game for the adapter's cost against OpenSpiel's own loop "
        "(bench/openspiel_adapter.py; default 20, 0 skips it)",
    )
    args = parser.parse_args(argv)
    wanted = [g.strip() for g in args.games.split(",") if g.strip()] or None

    print(__doc__.split("\n\n")[0])
    print(__doc__.split("\n\n")[1])
    print()
    widths = (22, 7, 9, 11, 13, 13, 11)
    print(
        row(
            ("game", "seats", "matches", "matches/s", "decisions/s", "us/decision", "dec/match"),
            widths,
        )
    )
    ours: list[tuple[str, int, Figures]] = []
    for name, rules in load_games(wanted):
        if isinstance(rules, str):
            print(row((name, "-"), (22, 7)) + f"  skipped: {rules}")
            continue
        for seats in rules.seat_counts:
            try:
                figures = play_ours(rules, seats, args.matches)
            except Exception as exc:  # an engine being written may crash mid-match
                print(row((name, seats), (22, 7)) + f"  skipped: {type(exc).__name__}: {exc}")
                continue
            ours.append((name, seats, figures))
            print(
                row(
                    (
                        name,
                        seats,
                        figures.matches,
                        f"{figures.matches_per_second:,.1f}",
                        f"{figures.decisions_per_second:,.0f}",
                        f"{figures.us_per_decision:,.1f}",
                        f"{figures.decisions / figures.matches:,.1f}",
                    ),
                    widths,
                )
            )

    print()
    peers = run_peers(args.peer_seconds)
    if ours and peers:
        print()
        print("Ratio: our us/decision / the peer's us/decision (above 1 = our engine is slower).")
        ratio_widths = (22, 7, *(max(len(n) + 2, 10) for n, _ in peers))
        print(row(("game", "seats", *(n for n, _ in peers)), ratio_widths))
        for name, seats, figures in ours:
            ratios = (f"{figures.us_per_decision / p.us_per_decision:,.1f}x" for _, p in peers)
            print(row((name, seats, *ratios), ratio_widths))
        base = dict(peers).get(BASELINE)
        if base is not None:
            for name in dict.fromkeys(n for n, _, _ in ours):
                mine = [f.us_per_decision / base.us_per_decision for n, _, f in ours if n == name]
                print(
                    f"Headline: a {name} decision costs {min(mine):.1f}x-{max(mine):.1f}x "
                    f"a {BASELINE} decision."
                )
    loaded = load_open_spiel() if ours and peers and args.interleave > 0 else None
    if loaded is not None and not isinstance(loaded, str):
        print()
        print(f"Interleaved with {BASELINE} ({args.interleave} rounds of alternating slices):")
        for name, rules in load_games(wanted):
            if isinstance(rules, str) or name not in {n for n, _, _ in ours}:
                continue
            mine, theirs = interleaved(rules, loaded[0], args.interleave)
            print(
                f"Headline (interleaved): a {name} decision costs {mine:.1f} us, a {BASELINE} "
                f"decision {theirs:.1f} us: {mine / theirs:.2f}x"
            )
    everything = [f for _, _, f in ours] + [f for _, f in peers]
    cpu = sum(f.seconds for f in everything)
    if cpu > 0:
        print(
            f"Wall clock: {sum(f.wall for f in everything) / cpu:.2f}x CPU time over the run "
            "(above 1 = other load on the machine; the figures above are CPU time)."
        )
    if args.openspiel > 0:
        # The adapter's cost per decision on every curated OpenSpiel game against OpenSpiel's
        # bare apply_action loop, measured in this same run.
        from bench import openspiel_adapter

        print()
        openspiel_adapter.main(["--matches", str(args.openspiel)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
