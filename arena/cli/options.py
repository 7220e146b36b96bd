"""Flags several commands share: `--option NAME=VALUE`, `--per-decision SECONDS`, `--bots A,B`."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from arena.cli.errors import CliError, positive
from arena.referee.clock import seconds, to_duration
from arena.v1 import common_pb2


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """`NAME=VALUE` flags as a dict; VALUE is JSON when it parses, else the bare string."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise CliError(
                f"--option needs NAME=VALUE, got {pair!r}",
                "`arena games` lists each game's options",
            )
        try:
            options[key] = json.loads(raw)
        except ValueError:
            options[key] = raw
    return options


def add_per_decision(parser: Any, default: float = 5.0, help: str = "seconds per decision") -> None:
    """Add `--per-decision SECONDS`, the per-decision limit of a clock, to `parser`."""
    parser.add_argument(
        "--per-decision",
        type=positive(float),
        default=default,
        help=f"{help} (default: {default:g})",
    )


def per_decision_clock(args: argparse.Namespace) -> common_pb2.Clock:
    """The wire clock that sets only `--per-decision` (the referee fills in the rest)."""
    return common_pb2.Clock(per_decision=to_duration(seconds(args.per_decision)))


def split_names(text: str) -> list[str]:
    """The names of a comma-separated flag such as `--bots alice,bob`, blanks dropped."""
    return [name.strip() for name in text.split(",") if name.strip()]
