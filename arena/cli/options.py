"""`--option NAME=VALUE` flags, as the options dict a game reads."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from arena.cli.errors import CliError


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
