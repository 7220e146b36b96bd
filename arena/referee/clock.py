"""Time control: per-decision limit, a per-seat bank, and a network grace never charged to bots."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from google.protobuf.duration_pb2 import Duration

from arena.v1 import common_pb2


def seconds(value: float) -> timedelta:
    """A duration of `value` seconds."""
    return timedelta(seconds=value)


def to_duration(value: timedelta) -> Duration:
    """A `google.protobuf.Duration`."""
    out = Duration()
    out.FromTimedelta(value)
    return out


@dataclass(frozen=True, slots=True)
class Clock:
    """A match's time control."""

    per_decision: timedelta = timedelta(seconds=5)
    """Time for each decision before the bank is touched."""
    bank: timedelta = timedelta(seconds=30)
    """A per-seat reserve for the whole match."""
    grace: timedelta = timedelta(milliseconds=250)
    """Allowance for the network, added to deadlines and never charged."""
    max_strikes: int = 3
    """Strikes before a forfeit; 0 = never forfeit."""

    def to_proto(self) -> common_pb2.Clock:
        """The wire form."""
        return common_pb2.Clock(
            per_decision=to_duration(self.per_decision),
            bank=to_duration(self.bank),
            grace=to_duration(self.grace),
            max_strikes=self.max_strikes,
        )

    def merged(self, wire: common_pb2.Clock | None) -> Clock:
        """This clock with the fields set in `wire` taken from it; bad values raise ValueError."""
        if wire is None:
            return self
        out = self
        for name in ("per_decision", "bank", "grace"):
            if wire.HasField(name):
                value = getattr(wire, name).ToTimedelta()
                if value < timedelta(0):
                    raise ValueError(f"clock {name} must not be negative")
                out = replace(out, **{name: value})
        if wire.HasField("max_strikes"):
            if wire.max_strikes < 0:
                raise ValueError("clock max_strikes must not be negative")
            out = replace(out, max_strikes=wire.max_strikes)
        if out.per_decision <= timedelta(0):
            raise ValueError("clock per_decision must be positive")
        return out

    def to_json(self) -> dict[str, Any]:
        """The form stored in Postgres."""
        return {
            "per_decision": self.per_decision.total_seconds(),
            "bank": self.bank.total_seconds(),
            "grace": self.grace.total_seconds(),
            "max_strikes": self.max_strikes,
        }

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Clock:
        """Parse `to_json` output."""
        return Clock(
            per_decision=seconds(obj["per_decision"]),
            bank=seconds(obj["bank"]),
            grace=seconds(obj["grace"]),
            max_strikes=int(obj["max_strikes"]),
        )


@dataclass(slots=True)
class SeatClock:
    """One seat's running clock within a match."""

    clock: Clock
    bank_left: timedelta
    used: timedelta = timedelta(0)

    @staticmethod
    def start(clock: Clock) -> SeatClock:
        """A fresh seat clock with the full bank."""
        return SeatClock(clock=clock, bank_left=clock.bank)

    def allowance(self) -> timedelta:
        """Time the seat may take for the next decision (grace excluded)."""
        return self.clock.per_decision + self.bank_left

    def charge(self, taken: timedelta) -> None:
        """Account for a decision that took `taken`; overtime is drawn from the bank."""
        self.used += taken
        overtime = taken - self.clock.per_decision
        if overtime > timedelta(0):
            self.bank_left = max(timedelta(0), self.bank_left - overtime)
