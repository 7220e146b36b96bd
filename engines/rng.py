"""Seeded chance: a counter-mode BLAKE2b generator, stable across Python versions.

The standard library only promises that `random.random()` is reproducible across versions, not
`shuffle`, `choice` or `randrange`. Every draw here is derived from BLAKE2b blocks and integer
arithmetic alone, so a recorded match replays identically on any platform and any Python.

Each decision gets its own stream, derived from (match seed, decision number): how many draws one
step makes can never shift the draws of a later step.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")

_BLOCK_BYTES = 64


class Rng(Protocol):
    """The only source of chance an engine may use."""

    def below(self, n: int) -> int:
        """Return a uniform integer in [0, n)."""
        ...

    def roll(self, sides: int = 6, count: int = 1) -> tuple[int, ...]:
        """Roll `count` dice with `sides` faces each (1..sides)."""
        ...

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """Return the items in a uniformly random order."""
        ...

    def choice(self, items: Sequence[T]) -> T:
        """Return one item uniformly at random."""
        ...


class _RngMixin:
    """Derived draws shared by every generator, built on `below`."""

    def below(self, n: int) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def roll(self, sides: int = 6, count: int = 1) -> tuple[int, ...]:
        """Roll `count` dice with `sides` faces each (1..sides)."""
        return tuple(self.below(sides) + 1 for _ in range(count))

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """Fisher-Yates on a copy; the input is never touched."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def choice(self, items: Sequence[T]) -> T:
        """Return one item uniformly at random."""
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.below(len(items))]


class HashRng(_RngMixin):
    """Counter-mode BLAKE2b keyed by a seed and a stream name."""

    __slots__ = ("_buffer", "_counter", "_key", "_material")

    def __init__(self, seed: int, stream: str) -> None:
        # The key is derived on the first draw: most decisions draw nothing.
        self._material = f"{seed}:{stream}"
        self._key = b""
        self._counter = 0
        self._buffer = b""

    @classmethod
    def for_setup(cls, seed: int) -> HashRng:
        """The stream used by `Rules.setup`."""
        return cls(seed, "setup")

    @classmethod
    def for_decision(cls, seed: int, number: int) -> HashRng:
        """The stream used by `Rules.apply` for decision `number`."""
        return cls(seed, f"decision:{number}")

    def _bytes(self, count: int) -> bytes:
        if not self._key:
            self._key = hashlib.blake2b(self._material.encode(), digest_size=32).digest()
        while len(self._buffer) < count:
            block = hashlib.blake2b(
                self._counter.to_bytes(8, "big"), key=self._key, digest_size=_BLOCK_BYTES
            ).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:count], self._buffer[count:]
        return out

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        if n == 1:
            return 0
        nbytes = (n.bit_length() + 7) // 8 + 1
        space = 1 << (8 * nbytes)
        limit = space - space % n
        while True:
            value = int.from_bytes(self._bytes(nbytes), "big")
            if value < limit:
                return value % n


class ScriptExhausted(Exception):
    """A scripted generator ran out of scripted values: the test under-scripted."""


class ScriptedRng(_RngMixin):
    """A test double that returns scripted values from `below`, in order.

    `roll` maps each scripted value v to the die face v + 1, so `ScriptedRng([2, 5])` rolls (3, 6).
    `shuffle` consumes one scripted value per swap, like `HashRng`; tests that need an exact deal
    usually build the state directly instead.
    """

    def __init__(self, values: Sequence[int] = ()) -> None:
        self._values = list(values)
        self.used = 0

    def below(self, n: int) -> int:
        """Return the next scripted value, checked against the bound."""
        if self.used >= len(self._values):
            raise ScriptExhausted(f"script of {len(self._values)} values exhausted")
        value = self._values[self.used]
        self.used += 1
        if not 0 <= value < n:
            raise ValueError(f"scripted value {value} is outside [0, {n})")
        return value

    def roll(self, sides: int = 6, count: int = 1) -> tuple[int, ...]:
        """Roll scripted dice: each scripted value is a face minus one."""
        return tuple(self.below(sides) + 1 for _ in range(count))
