"""A bot process that holds every answer until the test opens its gate (creates a file), so a
match stays in progress for as long as the test needs to observe it, whatever the machine's load.

    python -m tests.deploy.gated_bot --token T --address HOST:PORT --gate /tmp/x/open
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from arena.sdk import StrategyBot
from arena.sdk.bots.base import Turn
from engines import Json

POLL = 0.02


class GatedBot(StrategyBot):
    """A random player whose answers wait for `gate` to exist."""

    def __init__(self, gate: Path) -> None:
        super().__init__("random", seed=1)
        self.gate = gate
        self._quiet = threading.Event()

    def decide(self, turn: Turn) -> Json:
        """The random strategy's choice, once the gate is open."""
        while not self.gate.exists():
            self._quiet.wait(POLL)
        return super().decide(turn)


def main() -> None:
    """Play until stopped."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--token", required=True)
    parser.add_argument("--address", required=True)
    parser.add_argument("--gate", required=True, type=Path)
    args = parser.parse_args()
    GatedBot(args.gate).run(args.address, args.token)


if __name__ == "__main__":
    main()
