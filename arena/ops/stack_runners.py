"""The hosted-bot runners `arena up` starts (only where bwrap is installed): `runners=N` names
them runner-0 .. runner-N-1, each with its own workdir under the data directory and its own
metrics port, consecutive from `runner_metrics_port` (skipping the stack's other ports)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.ops.stack import StackConfig


@dataclass(frozen=True, slots=True)
class RunnerProcess:
    """One runner of the stack: its name (`arena runner --name`), metrics port and label."""

    name: str
    metrics_port: int
    label: str
    """The child's name in `Stack.children` and its log file: "runner" when it is alone."""


def runner_processes(config: StackConfig, taken: set[int]) -> list[RunnerProcess]:
    """The runners `config` asks for; none without bwrap (hosted bots are refused, not run
    unsandboxed). `taken`: the stack's other ports, which the metrics ports skip."""
    if shutil.which("bwrap") is None:
        return []
    ports = [config.runner_metrics_port]
    while len(ports) < config.runners:
        candidate = ports[-1] + 1
        while candidate in taken:
            candidate += 1
        ports.append(candidate)
    alone = config.runners == 1
    return [
        RunnerProcess(f"runner-{i}", port, "runner" if alone else f"runner-{i}")
        for i, port in enumerate(ports)
    ]


def runner_args(config: StackConfig, runner: RunnerProcess, address: str) -> list[str]:
    """The `arena runner` command line of `runner`, forwarding its bots to `address`."""
    return [
        *("-m", "arena.cli.main", "runner", "--name", runner.name, "--address", address),
        *("--workdir", str(config.data_dir / "runners" / runner.name)),
        *("--metrics-port", str(runner.metrics_port), "--bind", config.bind),
    ]
