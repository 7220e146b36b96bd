"""Reference bots: strategies that decide from exactly what a seat sees on the wire."""

from arena.sdk.bots.base import Strategy, Turn, strategy, strategy_names

__all__ = ["Strategy", "Turn", "strategy", "strategy_names"]
