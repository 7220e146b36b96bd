"""Chance nodes of an OpenSpiel game resolved exactly from a match's seeded stream.

OpenSpiel states a chance node's distribution as (outcome, probability) pairs of binary floats.
Each float is an exact fraction with a power-of-two denominator, so the draw is exact: one
integer below the sum of the numerators over their common denominator, then a cumulative pick.
No float arithmetic touches the draw, so a seed gives the same outcomes on every platform.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.rng import Rng


def sample_outcome(outcomes: Sequence[tuple[int, float]], rng: Rng) -> int:
    """One outcome of a chance node, drawn with exactly the probabilities OpenSpiel states."""
    first = outcomes[0][1] if outcomes else 0.0
    if first > 0 and all(probability == first for _, probability in outcomes):
        # Uniform (most deals): the same draw and pick as below, without the cumulative walk.
        numerator = first.as_integer_ratio()[0]
        return outcomes[rng.below(numerator * len(outcomes)) // numerator][0]
    ratios = [probability.as_integer_ratio() for _, probability in outcomes]
    denominator = max(d for _, d in ratios)  # all powers of two: the largest is a multiple of each
    numerators = [n * (denominator // d) for n, d in ratios]
    total = sum(numerators)
    if total <= 0:
        raise ValueError("a chance node with no outcome of positive probability")
    draw = rng.below(total)
    for (outcome, _), numerator in zip(outcomes, numerators, strict=True):
        if draw < numerator:
            return outcome
        draw -= numerator
    raise AssertionError("unreachable: the draw is below the total")  # pragma: no cover
