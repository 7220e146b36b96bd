"""Action spaces made of listed actions plus integer ranges, e.g. "open" or "offer 1..money".

Such a space lists itself when small and otherwise describes itself as JSON:

    {"kind": "mixed",
     "actions": [<wire action>, ...],
     "ranges": [{"template": <wire action>, "field": "amount", "min": 1, "max": 250}]}

A bot answers a range by copying the template and setting `field` to a value in [min, max].
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from engines.api import DEFAULT_LISTING_LIMIT, ActionSpace, Json
from engines.rng import Rng

A = TypeVar("A")


@dataclass(frozen=True, slots=True)
class IntRange(Generic[A]):
    """The actions make(low)..make(high); `value_of` inverts `make` (None if not in the family)."""

    low: int
    high: int
    make: Callable[[int], A] = field(compare=False)
    value_of: Callable[[object], int | None] = field(compare=False)
    field: str
    """The name of the integer field in the wire form."""

    def __len__(self) -> int:
        return max(0, self.high - self.low + 1)

    def __contains__(self, action: object) -> bool:
        value = self.value_of(action)
        return value is not None and self.low <= value <= self.high


@dataclass(frozen=True, slots=True)
class MixedSpace(ActionSpace[A]):
    """Listed actions plus integer ranges; the default is the first listed action."""

    actions: tuple[A, ...]
    ranges: tuple[IntRange[A], ...] = ()
    dump: Callable[[A], Json] | None = field(default=None, compare=False)
    """The game's `dump_action`, used by `describe`."""

    def __post_init__(self) -> None:
        if not self.actions and not any(len(r) for r in self.ranges):
            raise ValueError("a decision must offer at least one legal action")

    def _size(self) -> int:
        return len(self.actions) + sum(len(r) for r in self.ranges)

    def __contains__(self, action: object) -> bool:
        try:
            if action in self.actions:
                return True
        except TypeError:
            return False
        return any(action in r for r in self.ranges)

    def sample(self, rng: Rng) -> A:
        index = rng.below(self._size())
        if index < len(self.actions):
            return self.actions[index]
        index -= len(self.actions)
        for r in self.ranges:
            if index < len(r):
                return r.make(r.low + index)
            index -= len(r)
        raise AssertionError("unreachable")  # pragma: no cover

    def default(self) -> A:
        if self.actions:
            return self.actions[0]
        first = next(r for r in self.ranges if len(r))
        return first.make(first.low)

    def listing(self, limit: int = DEFAULT_LISTING_LIMIT) -> Sequence[A] | None:
        if self._size() > limit:
            return None
        return (*self.actions, *(r.make(v) for r in self.ranges for v in range(r.low, r.high + 1)))

    def describe(self) -> Json:
        if self.dump is None:
            raise ValueError("MixedSpace.describe needs the game's dump_action")
        dump = self.dump
        return {
            "kind": "mixed",
            "actions": [dump(a) for a in self.actions],
            "ranges": [
                {"template": dump(r.make(r.low)), "field": r.field, "min": r.low, "max": r.high}
                for r in self.ranges
                if len(r)
            ],
        }
