"""Benchmark: the version test's error rates and sample numbers, simulated on calibrated models.

First it plays real paired sets of the reference bots in process (two equally strong noisy
copies of each game's heuristic as candidate and baseline, the heuristic and the random bot as
fillers, 4 seats) and fits a match model with seat effects and deal noise to them
(tests/versiontest/calibrate.py). Then, per game, it simulates `--tests` version tests at true
Elo `--elo0` and `--elo1`, paired (the arena's design) and unpaired (each match a fresh seed at
random seats), and prints:

- the false-positive rate (H1 accepted at elo0) and false-negative rate (H0 at elo1) with the
  binomial 95% band of alpha and beta they should land in;
- the average sample number in matches, paired against unpaired (issue 29's goal: <= 60%);
- the SPRT's average against a fixed-sample test of the same alpha and power (goal: <= 60%).

    .venv/bin/python bench/sprt.py [--tests 1000] [--elo0 0] [--elo1 10] [--sets 150]
                                   [--games hart,crossing,loyang] [--seed 1] [--noise 0.05]

The default span is 0..10 Elo so a default run stays within minutes; the error rates and the
ratios are those of any small span (the sample numbers scale as 1 / span squared).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Run as a script from anywhere: the repository root is what makes `arena` importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.versiontest.gsprt import Hypotheses, expected_score
from tests.versiontest.calibrate import NOISE, fit, observe, play_sets
from tests.versiontest.model import Model, delta_for, pair_ratio, paired_sets, trinomial, variance
from tests.versiontest.simulate import binomial_band, fixed_sample, run_test, summarise

CAP = 10**7
SETS = {"hart": 150, "crossing": 60, "loyang": 150}
"""Real calibration sets per game by default (a Crossing match takes the longest)."""


def calibrate(game: str, sets: int, noise: float = NOISE) -> Model:
    """Play real sets of `game` and fit its model; prints what it saw."""
    started = time.process_time()
    observed = observe(play_sets(game, sets, noise=noise))
    model = fit(game, 4, observed)
    effects = ", ".join(f"{e:+.2f}" for e in model.seat_effects)
    print(
        f"{game}: {observed.sets} real sets ({time.process_time() - started:.0f} s CPU): "
        f"ties {observed.tie_rate:.1%}, 2 var(set)/var(match) = {observed.ratio:.2f}; "
        f"model: seat effects [{effects}], deal share {model.deal_share:.2f}, "
        f"tie {model.tie:.2f} (its ratio {pair_ratio(model):.2f})"
    )
    return model


def simulate(model: Model, hypotheses: Hypotheses, tests: int, rng: random.Random) -> bool:
    """Run and print the simulated tests of one model; whether every goal was met."""
    s0, s1 = expected_score(hypotheses.elo0), expected_score(hypotheses.elo1)
    ok = True
    rows = {}
    for label, elo in (("elo0", hypotheses.elo0), ("elo1", hypotheses.elo1)):
        delta = delta_for(model, elo)
        paired = summarise(
            [run_test(paired_sets(model, delta), hypotheses, rng, CAP) for _ in range(tests)]
        )
        unpaired = summarise(
            [run_test([trinomial(model, delta)], hypotheses, rng, CAP) for _ in range(tests)]
        )
        rows[label] = (paired, unpaired, delta)
    fp_band = binomial_band(hypotheses.alpha, tests)
    fn_band = binomial_band(hypotheses.beta, tests)
    for name, (paired, unpaired, _) in rows.items():
        wrong, band, rate = (
            (paired.h1, fp_band, hypotheses.alpha)
            if name == "elo0"
            else (paired.h0, fn_band, hypotheses.beta)
        )
        wrong_unpaired = unpaired.h1 if name == "elo0" else unpaired.h0
        inside = band[0] <= wrong / tests <= band[1]
        ok &= inside
        kind = "false positives" if name == "elo0" else "false negatives"
        verdict = "ok" if inside else "OUT"
        print(
            f"  at {name}: {kind} paired {wrong / tests:.3f}, "
            f"unpaired {wrong_unpaired / tests:.3f} "
            f"(band of {rate} over {tests}: {band[0]:.3f}..{band[1]:.3f}) {verdict}"
        )
    for name, (paired, unpaired, delta) in rows.items():
        matches = 2 * paired.mean_samples
        ratio = matches / unpaired.mean_samples
        sets = paired_sets(model, delta)
        set_variance = sum(variance(p) for p in sets) / len(sets)
        fixed = 2 * fixed_sample(set_variance, hypotheses, s0, s1)
        versus_fixed = matches / fixed
        ok &= ratio <= 0.6 and versus_fixed <= 0.6
        print(
            f"  at {name}: mean matches paired {matches:.0f}, "
            f"unpaired {unpaired.mean_samples:.0f}: "
            f"ratio {ratio:.2f} (goal <= 0.60); fixed-sample test of equal power {fixed:.0f} "
            f"matches: SPRT/fixed {versus_fixed:.2f} (goal <= 0.60)"
        )
    return ok


def main() -> int:
    """Calibrate, simulate, print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--sets", type=int, default=0, help="real calibration sets per game")
    parser.add_argument("--games", default="hart,crossing,loyang")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--noise", type=float, default=NOISE, help="share of random moves of the calibration bots"
    )
    args = parser.parse_args()
    hypotheses = Hypotheses(args.elo0, args.elo1, args.alpha, args.beta)
    print(
        f"GSPRT elo0 {args.elo0} elo1 {args.elo1} alpha {args.alpha} beta {args.beta}: "
        f"bounds {hypotheses.lower:.3f} .. {hypotheses.upper:.3f}; {args.tests} tests per case"
    )
    rng = random.Random(args.seed)
    ok = True
    for game in args.games.split(","):
        model = calibrate(game, args.sets or SETS[game], args.noise)
        started = time.process_time()
        ok &= simulate(model, hypotheses, args.tests, rng)
        print(f"  ({time.process_time() - started:.0f} s CPU)")
    print("every goal met" if ok else "some goal missed (see OUT or the ratios above)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
