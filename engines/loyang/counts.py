"""Arithmetic on crop counts (carts, shops, stalls): adding, removing, naming, covering."""

from __future__ import annotations

from engines.api import Json
from engines.loyang.cards import Counts, Crop


def add(counts: Counts, crop: Crop, n: int = 1) -> Counts:
    """`counts` with `n` more of `crop` (n may be negative)."""
    out = list(counts)
    out[crop] += n
    return tuple(out)


def add_all(counts: Counts, crops: tuple[Crop, ...], sign: int = 1) -> Counts:
    """`counts` plus (or minus, sign -1) one of each crop listed."""
    out = list(counts)
    for crop in crops:
        out[crop] += sign
    return tuple(out)


def names(crops: tuple[Crop, ...]) -> list[Json]:
    """The wire names of `crops`, in order (for events and views)."""
    return [c.wire for c in crops]


def has_all(counts: Counts, crops: tuple[Crop, ...]) -> bool:
    """Whether `counts` holds every crop of the multiset `crops`."""
    need = _NEEDS.get(crops)
    if need is None:
        counted = [0] * 6
        for crop in crops:
            counted[crop] += 1
        need = _NEEDS[crops] = tuple((i, n) for i, n in enumerate(counted) if n)
    for i, n in need:  # noqa: SIM110 - a loop, not all(generator): a dozen calls per decision
        if counts[i] < n:
            return False
    return True


_NEEDS: dict[tuple[Crop, ...], tuple[tuple[int, int], ...]] = {}
"""(crop, count) of each multiset `has_all` was asked about: the customers' demands recur."""
