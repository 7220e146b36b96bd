"""Helpers of the deploy tests: paths, the deploy files, Prometheus tools and process groups."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
PROMETHEUS_DIR = DEPLOY / "prometheus"
PROMETHEUS_YML = PROMETHEUS_DIR / "prometheus.yml"
ALERTS_YML = PROMETHEUS_DIR / "alerts.yml"
ALERTS_TEST_YML = PROMETHEUS_DIR / "alerts_test.yml"
DASHBOARD = DEPLOY / "grafana" / "arena.json"
COMPOSE = DEPLOY / "compose.yaml"
OPERATIONS = REPO / "docs" / "operations.md"

# Grafana's variables, as a query over the whole test run would see them.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$game": ".*", "${game}": ".*"}
SAMPLE_SUFFIXES = ("_bucket", "_count", "_sum", "_total")


def load_yaml(path: Path) -> Any:
    """A YAML file's content."""
    return yaml.safe_load(path.read_text())


def dashboard() -> dict[str, Any]:
    """The Grafana dashboard."""
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def panels(board: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel that shows data (rows excluded), including panels nested in collapsed rows."""
    for panel in board["panels"]:
        if panel["type"] == "row":
            yield from panel.get("panels", [])
        else:
            yield panel


def expand(expr: str) -> str:
    """A dashboard query with Grafana's variables replaced as for the whole time range."""
    for name, value in GRAFANA_VARIABLES.items():
        expr = expr.replace(name, value)
    return expr


def dashboard_queries() -> list[tuple[str, str, dict[str, Any]]]:
    """(panel title, expanded query, target) for every query of every panel."""
    return [
        (panel["title"], expand(target["expr"]), target)
        for panel in panels(dashboard())
        for target in panel["targets"]
    ]


def alert_rules() -> list[dict[str, Any]]:
    """Every alerting rule of alerts.yml."""
    return [rule for group in load_yaml(ALERTS_YML)["groups"] for rule in group["rules"]]


def metric_names(expr: str) -> set[str]:
    """The Arena metric names a PromQL expression reads."""
    return set(re.findall(r"\barena_[a-z0-9_]+\b", expr))


def family(sample_name: str) -> str:
    """The OpenMetrics family of a sample name (`x_bucket`, `x_total` -> `x`)."""
    for suffix in SAMPLE_SUFFIXES:
        if sample_name.endswith(suffix):
            return sample_name.removesuffix(suffix)
    return sample_name


# -- tools ----------------------------------------------------------------------------------------
def ensure_debian_package(command: str, package: str) -> str | None:
    """The path of `command`, installing Debian's `package` for it if needed; None if impossible."""
    found = shutil.which(command)
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        return None
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    steps = [["apt-get", "install", "-y", "--no-install-recommends", package]]
    if not _APT_UPDATED:
        steps.insert(0, ["apt-get", "update"])
    for step in steps:
        try:
            subprocess.run(step, env=env, capture_output=True, timeout=600, check=True)
        except (subprocess.SubprocessError, OSError):
            return None
        _APT_UPDATED.append(True)
    return shutil.which(command)


_APT_UPDATED: list[bool] = []  # `apt-get update` runs once per test session


def run(args: list[str], cwd: Path | None = None, timeout: float = 60) -> tuple[int, str]:
    """Run a command; its exit code and combined output."""
    done = subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )
    return done.returncode, done.stdout + done.stderr


# -- processes ------------------------------------------------------------------------------------


def start_group(args: list[str], log: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """Start a command in a process group of its own, output to `log`."""
    with log.open("ab") as out:
        return subprocess.Popen(
            args,
            cwd=REPO,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_group(process: subprocess.Popen[bytes], grace: float = 30.0) -> None:
    """SIGTERM the process group, wait up to `grace` seconds, then SIGKILL what is left."""
    if process.returncode is not None:
        return  # stopped and reaped already: its group id may belong to someone else by now
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        if sig is signal.SIGTERM:
            # The leader has gone; take down any child it left in its group.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        return


def kill_processes_mentioning(text: str) -> list[int]:
    """SIGKILL processes whose command line contains `text` (a test's own temporary folder)."""
    killed = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                killed.append(int(entry.name))
            except ProcessLookupError:
                pass
    return killed


def log_tail(log: Path, lines: int = 40) -> str:
    """The last lines of a log file, for failure messages."""
    if not log.exists():
        return "(no log)"
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


def wait_for(what: str, check: Any, timeout: float, interval: float = 0.5) -> Any:
    """Call `check` until it returns something truthy; fail naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


def load_healthcheck() -> Any:
    """deploy/healthcheck.py as a module (it is a script, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("arena_healthcheck", DEPLOY / "healthcheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def eventually(what: str, problems: Any, timeout: float, interval: float = 1.0) -> None:
    """Call `problems` until it returns an empty list; fail with the last one after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        found = problems()
        if not found:
            return
        if time.monotonic() >= deadline:
            raise AssertionError(f"after {timeout:.0f}s, {what}: {found}")
        time.sleep(interval)
