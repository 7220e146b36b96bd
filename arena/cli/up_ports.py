"""The ports `arena up` plans to listen on, checked before anything starts."""

from __future__ import annotations

from arena.cli.errors import CliError, ExitCode
from arena.cli.ports import ensure_free
from arena.ops.stack import StackConfig, referee_processes
from arena.ops.stack_runners import runner_processes

RUNS = ("port", "referee-metrics-port", "runner-metrics-port")
"""The options that set a run of consecutive ports (N referees, N runners)."""

MAX_PORT = 65535


def planned_ports(config: StackConfig) -> list[tuple[str, str, int]]:
    """(what, the option that sets it, port) of every port the stack will listen on."""
    ports: list[tuple[str, str, int]] = []
    for referee in referee_processes(config):
        ports.append((f"{referee.name}'s gRPC port", "port", referee.port))
        ports.append(
            (f"{referee.name}'s metrics port", "referee-metrics-port", referee.metrics_port)
        )
    ports.append(("the worker's metrics port", "worker-metrics-port", config.worker_metrics_port))
    ports.append(("beat's metrics port", "beat-metrics-port", config.beat_metrics_port))
    if config.web_port >= 0:
        ports.append(("the web port", "web-port", config.web_port))
        ports.append(("the web metrics port", "web-metrics-port", config.web_metrics_port))
    for runner in runner_processes(config, {port for _, _, port in ports}):
        ports.append((f"{runner.name}'s metrics port", "runner-metrics-port", runner.metrics_port))
    return ports


def _free_run(taken: set[int], start: int, count: int) -> int:
    """The lowest port >= `start` that begins `count` consecutive ports none of `taken`."""
    base = start
    while any(base + i in taken for i in range(count)):
        base += 1
    return base


def check_port_plan(config: StackConfig) -> None:
    """Refuse, in one line, ports out of range or used twice (N referees take N consecutive
    gRPC and metrics ports, which may run into the other services' ports)."""
    ports = planned_ports(config)
    seen: dict[int, tuple[str, str]] = {}
    for what, flag, port in ports:
        if port > MAX_PORT:
            raise CliError(
                f"{what} would be {port}, above {MAX_PORT}",
                f"pass a lower --{flag}",
                ExitCode.USAGE,
            )
        if port in seen:
            other, other_flag = seen[port]
            # Move the referees' run of ports: the other services have one port each.
            moved = flag if flag in RUNS else other_flag
            own = {p for w, f, p in ports if f == moved}
            taken = {p for w, f, p in ports if f != moved}
            start = _free_run(taken, min(own), len(own))
            raise CliError(
                f"port {port} would be both {other} and {what}",
                f"pass --{moved} {start}"
                + (f" ({len(own)} ports from it)" if len(own) > 1 else ""),
                ExitCode.USAGE,
            )
        seen[port] = (what, flag)


def check_ports_free(ports: list[tuple[str, str, int]], host: str) -> None:
    for what, flag, port in ports:
        ensure_free(port, f"--{flag}", what, host)
