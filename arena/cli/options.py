"""Flags several commands share: `--option NAME=VALUE`, `--per-decision SECONDS`, `--bots A,B`,
`--bind HOST`, a game's name."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from typing import Any

import engines
from arena.cli.errors import CliError, positive
from arena.referee.clock import seconds, to_duration
from arena.v1 import common_pb2


def game_name(text: str) -> str:
    """An argparse `type`: a registered game or any `openspiel/<name>` (checked when loaded)."""
    if text in engines.names() or text.startswith("openspiel/"):
        return text
    raise argparse.ArgumentTypeError(
        f"unknown game {text!r}; choose from {', '.join(engines.names())} or openspiel/<name>"
    )


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


def add_bind(parser: Any, default: str, what: str, env: str = "") -> None:
    """Add `--bind HOST`, the interface `what` listen on, to `parser` (default: `env`'s value,
    else `default`)."""
    parser.add_argument(
        "--bind",
        default=os.environ.get(env, default) if env else default,
        metavar="HOST",
        help=f"interface {what} listen on: 127.0.0.1 for this machine only, 0.0.0.0 or [::] "
        f"for every interface (default: {f'${env}, else ' if env else ''}{default})",
    )
