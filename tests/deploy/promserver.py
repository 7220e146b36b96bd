"""A real Prometheus server on loopback, configured from deploy/prometheus/prometheus.yml."""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from arena.ops.ports import free_port
from tests.deploy.support import (
    ALERTS_YML,
    PROMETHEUS_YML,
    load_yaml,
    log_tail,
    start_group,
    stop_group,
    wait_for,
)


def loopback_config(targets: Mapping[str, list[str]], rule_file: Path = ALERTS_YML) -> Any:
    """deploy's prometheus.yml with each job's targets replaced, a 1 s cycle and `rule_file`.

    `targets` must name exactly the jobs of the deploy file, so a job added there without a
    process behind it here fails the test rather than go unscraped.
    """
    config = load_yaml(PROMETHEUS_YML)
    jobs = {job["job_name"] for job in config["scrape_configs"]}
    if jobs != set(targets):
        raise AssertionError(f"deploy jobs {sorted(jobs)} != jobs given here {sorted(targets)}")
    config["global"].update(scrape_interval="1s", scrape_timeout="1s", evaluation_interval="1s")
    config["rule_files"] = [str(rule_file)]
    for job in config["scrape_configs"]:
        job["static_configs"] = [{"targets": list(targets[job["job_name"]])}]
    return config


class PrometheusServer:
    """`prometheus` on 127.0.0.1 with a generated config; `api()` reads its HTTP API."""

    def __init__(self, binary: str, folder: Path) -> None:
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.log = folder / "prometheus.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """host:port of the server."""
        return f"127.0.0.1:{self.port}"

    def start(self, jobs: Mapping[str, list[str]]) -> None:
        """Write the config for `jobs` (the `prometheus` job is this server) and start."""
        config = loopback_config({**jobs, "prometheus": [self.address]})
        path = self.folder / "prometheus.yml"
        path.write_text(yaml.safe_dump(config))
        self.process = start_group(
            [
                self.binary,
                f"--config.file={path}",
                f"--storage.tsdb.path={self.folder / 'data'}",
                f"--web.listen-address={self.address}",
                "--storage.tsdb.retention.time=1h",
            ],
            self.log,
            os.environ,
        )
        wait_for("Prometheus to be ready", self._ready, timeout=60)

    def stop(self) -> None:
        """Stop the server."""
        if self.process is not None:
            stop_group(self.process, grace=15)
            self.process = None

    def _ready(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            raise AssertionError(f"prometheus exited:\n{log_tail(self.log)}")
        try:
            with urllib.request.urlopen(f"http://{self.address}/-/ready", timeout=2) as reply:
                return bool(reply.status == 200)
        except OSError:
            return False

    def api(self, path: str, **params: Any) -> Any:
        """The `data` of a GET on /api/v1/<path>."""
        query = urllib.parse.urlencode(params)
        url = f"http://{self.address}/api/v1/{path}" + (f"?{query}" if query else "")
        with urllib.request.urlopen(url, timeout=10) as reply:
            body = json.load(reply)
        if body.get("status") != "success":
            raise AssertionError(f"{url}: {body}")
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The result of an instant query."""
        result: list[dict[str, Any]] = self.api("query", query=expr)["result"]
        return result

    def query_range(self, expr: str, start: float, step: float = 2.0) -> list[dict[str, Any]]:
        """The result of a range query from `start` to now."""
        result: list[dict[str, Any]] = self.api(
            "query_range", query=expr, start=start, end=time.time(), step=step
        )["result"]
        return result

    def value(self, expr: str) -> float | None:
        """The single value of an instant query, or None if it has no result."""
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else None

    def targets(self) -> list[dict[str, Any]]:
        """The active scrape targets."""
        active: list[dict[str, Any]] = self.api("targets", state="active")["activeTargets"]
        return active

    def rules(self) -> list[dict[str, Any]]:
        """Every rule with its health, state and last error."""
        return [rule for group in self.api("rules")["groups"] for rule in group["rules"]]

    def alerts(self) -> list[dict[str, Any]]:
        """Active (pending or firing) alerts."""
        alerts: list[dict[str, Any]] = self.api("alerts")["alerts"]
        return alerts

    def metadata(self) -> set[str]:
        """Names of the metric families Prometheus has seen (from HELP/TYPE lines)."""
        return set(self.api("metadata"))
