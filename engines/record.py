"""The record of a match: what Postgres stores and golden files contain, enough to replay it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.api import Json, Seat
from engines.errors import ReplayMismatch


@dataclass(frozen=True, slots=True)
class Record:
    """Everything needed to reproduce a match: what Postgres stores and golden files contain."""

    game: str
    rules_version: int
    options: Mapping[str, Json]
    seats: int
    seed: int
    moves: tuple[Mapping[Seat, Json], ...]
    """One joint action (in wire form) per decision, by decision number."""

    def to_json(self) -> dict[str, Json]:
        """The record as JSON (seat keys become strings)."""
        return {
            "game": self.game,
            "rules_version": self.rules_version,
            "options": dict(self.options),
            "seats": self.seats,
            "seed": self.seed,
            "moves": [{str(seat): a for seat, a in sorted(m.items())} for m in self.moves],
        }

    @staticmethod
    def from_json(obj: Any) -> Record:
        """Parse `to_json` output; a malformed record raises `ReplayMismatch`."""
        try:
            return Record(
                game=str(obj["game"]),
                rules_version=int(obj["rules_version"]),
                options=dict(obj["options"]),
                seats=int(obj["seats"]),
                seed=int(obj["seed"]),
                moves=tuple({int(s): a for s, a in m.items()} for m in obj["moves"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ReplayMismatch(f"malformed record: {exc!r}") from None
