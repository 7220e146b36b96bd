"""The seeded generator: stable values, uniform draws, independent streams."""

from __future__ import annotations

from collections import Counter

import pytest

from engines import HashRng, ScriptedRng
from engines.rng import ScriptExhausted


def test_values_are_pinned() -> None:
    # Pinned so that a change to the construction, which would break every recorded replay,
    # fails here first.
    rng = HashRng(7, "decision:3")
    assert [rng.below(100) for _ in range(8)] == PINNED


PINNED = [27, 40, 55, 4, 1, 26, 56, 52]


def test_streams_are_independent_and_reproducible() -> None:
    a = [HashRng(1, "setup").below(1000) for _ in range(3)]
    assert a == [HashRng(1, "setup").below(1000) for _ in range(3)]
    first = HashRng(1, "decision:0")
    second = HashRng(1, "decision:1")
    assert [first.below(10**9) for _ in range(4)] != [second.below(10**9) for _ in range(4)]
    assert HashRng.for_decision(5, 2).below(10**9) == HashRng(5, "decision:2").below(10**9)


def test_below_is_uniform() -> None:
    rng = HashRng(3, "uniform")
    counts = Counter(rng.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    for value in counts.values():
        assert 9_400 < value < 10_600


def test_shuffle_is_a_permutation_and_leaves_input_alone() -> None:
    items = list(range(20))
    shuffled = HashRng(9, "s").shuffle(items)
    assert sorted(shuffled) == items and shuffled != tuple(items)
    assert items == list(range(20))


def test_below_rejects_empty_range() -> None:
    with pytest.raises(ValueError):
        HashRng(0, "x").below(0)


def test_scripted_rng() -> None:
    rng = ScriptedRng([2, 5, 0])
    assert rng.roll(6, 2) == (3, 6)
    assert rng.below(4) == 0
    with pytest.raises(ScriptExhausted):
        rng.below(3)
    with pytest.raises(ValueError):
        ScriptedRng([9]).below(3)
