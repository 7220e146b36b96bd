"""The seeded fingerprint of every engine: prove a speed change changed nothing a caller can see.

Seeded random play of every game (`--seeds` seeds x every seat count x the defaults and every
preset) through `MatchDriver`, hashing, per decision: the decision, every listed legal action and
the default in wire form, every view of every seat and the public one every third decision, the
move, every event with its audience; then the record and the outcome. Prints one SHA-256 per
game: run it before and after a change and compare (equal means identical play).

    .venv/bin/python bench/fingerprint.py [--seeds 3] [--games hart,crossing,loyang]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# Run as a script from anywhere: the repository root is what makes `engines` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines
from engines import HashRng
from engines.driver import MatchDriver
from engines.errors import OptionsError
from engines.registry import BUILTIN_GAMES

MAX_DECISIONS = 200_000
"""A match longer than this is a bug in the engine."""


def _feed(digest: Any, value: object) -> None:
    digest.update(json.dumps(value, sort_keys=True, default=repr).encode())
    digest.update(b"\n")


def fingerprint_match(
    game: str, seats: int, options: Mapping[str, Any], seed: int, digest: Any
) -> int:
    """Feed one seeded random match into `digest`; return its decision count."""
    rules = engines.get(game)
    driver: MatchDriver[Any, Any] = MatchDriver(rules, seats, options, seed)
    for decision in driver.run():
        if decision.number > MAX_DECISIONS:
            raise RuntimeError(f"{game} seed {seed}: no end after {MAX_DECISIONS} decisions")
        _feed(digest, [decision.number, sorted(decision.seats), decision.label])
        joint = {}
        for seat in sorted(decision.seats):
            space = driver.space(seat)
            listing = space.listing()
            _feed(digest, None if listing is None else [rules.dump_action(a) for a in listing])
            _feed(digest, rules.dump_action(space.default()))
            joint[seat] = space.sample(HashRng(seed, f"fingerprint:{decision.number}:{seat}"))
        viewers: list[int | None] = list(range(seats))
        if decision.number % 3 == 0:
            viewers.append(None)
        for viewer in viewers:
            _feed(digest, driver.view(viewer))
        move = driver.play(joint)
        _feed(digest, dict(move.wire))
        _feed(digest, [[e.to_json(), sorted(e.audience or ())] for e in move.events])
    _feed(digest, driver.record().to_json())
    _feed(digest, repr(driver.outcome()))
    return driver.number


def fingerprint_game(game: str, seeds: int) -> tuple[str, int]:
    """(SHA-256, decisions) of `game`'s seeded random play over every seat count and preset."""
    rules = engines.get(game)
    digest = hashlib.sha256()
    decisions = 0
    variants: list[Mapping[str, Any]] = [{}, *rules.presets.values()]
    for options in variants:
        for seats in rules.seat_counts:
            try:
                rules.resolve_options(options)
                MatchDriver(rules, seats, options, 0)
            except OptionsError:
                continue  # a variant made for other seat counts
            for seed in range(seeds):
                decisions += fingerprint_match(game, seats, options, seed, digest)
    return digest.hexdigest(), decisions


def main(argv: Sequence[str] | None = None) -> int:
    """Print each game's fingerprint."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--games", default=",".join(BUILTIN_GAMES))
    args = parser.parse_args(argv)
    for game in args.games.split(","):
        sha, decisions = fingerprint_game(game, args.seeds)
        print(f"{game}: {sha} ({decisions:,} decisions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
