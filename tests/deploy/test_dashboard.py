"""deploy/grafana: the dashboard, its queries, and the metrics that it and the alerts read."""

from __future__ import annotations

from pathlib import Path

import yaml
from prometheus_client.metrics import MetricWrapperBase

from arena.ops import metrics
from arena.web import metrics as web_metrics
from tests.deploy.support import (
    COMPOSE,
    DEPLOY,
    alert_rules,
    dashboard,
    dashboard_queries,
    family,
    load_yaml,
    metric_names,
    panels,
    run,
)

PROVISIONING = DEPLOY / "grafana" / "provisioning"
# The issue's panel list, each with the panel title that answers it.
REQUIRED_PANELS = {
    "matches in progress": "Matches in progress by game",
    "decisions per second by game": "Decisions per second by game",
    "decision latency percentiles": "Decision latency (bot round trip)",
    "timeouts, strikes and forfeits": "Timeouts, strikes and forfeits per minute",
    "tournaments and rounds in progress": "Tournaments and rounds in progress",
    "Celery task rates": "Task rate by task and outcome",
    "Celery task failures": "Task failures per minute",
    "the top bots by rating per game": "Top bots by rating",
    "web requests": "Web requests per second",
    "web latency": "Web latency",
    "pushed subscribers": "Pushed subscribers",
}
METRIC_MODULES = (metrics, web_metrics)
"""Where the arena's Prometheus metrics are defined: the services', and the web server's."""


def exposed_sample_names() -> set[str]:
    """Every sample name the metrics of arena/ops/metrics.py and arena/web/metrics.py expose."""
    names = set()
    for value in (v for module in METRIC_MODULES for v in vars(module).values()):
        if not isinstance(value, MetricWrapperBase):
            continue
        for described in value.describe():
            suffixes = {
                "counter": ("_total", "_created"),
                "histogram": ("_bucket", "_count", "_sum", "_created"),
                "gauge": ("",),
            }[described.type]
            names |= {described.name + suffix for suffix in suffixes}
    return names


def test_dashboard_identity_and_variables() -> None:
    board = dashboard()
    assert board["uid"] == "arena" and board["title"] == "Arena"
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    assert variables["game"]["allValue"] == ".*" and variables["game"]["includeAll"]


def test_every_panel_has_a_prometheus_query_and_a_place() -> None:
    board = dashboard()
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    occupied: set[tuple[int, int]] = set()
    for panel in board["panels"]:
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24, panel["title"]
        cells = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])
            for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not cells & occupied, f"{panel['title']} overlaps another panel"
        occupied |= cells
    for panel in panels(board):
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        assert panel["description"], panel["title"]
        assert panel["targets"], panel["title"]
        refs = [t["refId"] for t in panel["targets"]]
        assert len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip() and target["legendFormat"], panel["title"]


def test_the_issue_panels_exist() -> None:
    titles = {p["title"] for p in panels(dashboard())}
    missing = {need: title for need, title in REQUIRED_PANELS.items() if title not in titles}
    assert not missing


def test_dashboard_queries_are_valid_promql(promtool: str, tmp_path: Path) -> None:
    """promtool parses each query, as a recording rule, with Grafana's variables filled in."""
    rules = [
        {"record": f"dashboard:query_{n}", "expr": expr}
        for n, (_, expr, _) in enumerate(dashboard_queries())
    ]
    (tmp_path / "dashboard.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]})
    )
    code, output = run([promtool, "check", "rules", "dashboard.yml"], cwd=tmp_path)
    assert code == 0, output
    assert f"SUCCESS: {len(rules)} rules found" in output


def test_promql_check_can_fail(promtool: str, tmp_path: Path) -> None:
    bad = [{"record": "dashboard:bad", "expr": "sum by (game (rate(arena_decisions_total[1m]))"}]
    (tmp_path / "bad.yml").write_text(yaml.safe_dump({"groups": [{"name": "b", "rules": bad}]}))
    code, output = run([promtool, "check", "rules", "bad.yml"], cwd=tmp_path)
    assert code != 0, output


def test_every_metric_the_dashboard_and_alerts_read_is_defined() -> None:
    exposed = exposed_sample_names()
    assert "arena_decision_round_trip_seconds_bucket" in exposed
    read = {
        (where, name) for where, expr, _ in dashboard_queries() for name in metric_names(expr)
    } | {(rule["alert"], name) for rule in alert_rules() for name in metric_names(rule["expr"])}
    unknown = sorted((where, name) for where, name in read if name not in exposed)
    assert not unknown, f"not defined in arena/ops/metrics.py or arena/web/metrics.py: {unknown}"


def test_every_arena_metric_is_on_the_dashboard_or_in_an_alert() -> None:
    read = {family(n) for _, expr, _ in dashboard_queries() for n in metric_names(expr)}
    read |= {family(n) for rule in alert_rules() for n in metric_names(rule["expr"])}
    defined = {
        described.name
        for module in METRIC_MODULES
        for value in vars(module).values()
        if isinstance(value, MetricWrapperBase)
        for described in value.describe()
    }
    assert read == defined, (
        f"looked at but undefined {sorted(read - defined)}, unused {sorted(defined - read)}"
    )


def test_provisioning_loads_the_dashboard_that_compose_mounts() -> None:
    datasources = load_yaml(PROVISIONING / "datasources" / "prometheus.yml")["datasources"]
    assert [d["type"] for d in datasources] == ["prometheus"]
    providers = load_yaml(PROVISIONING / "dashboards" / "arena.yml")["providers"]
    folder = providers[0]["options"]["path"]
    grafana = load_yaml(COMPOSE)["services"]["grafana"]
    mounts = dict(volume.split(":")[:2] for volume in grafana["volumes"])
    assert mounts["./grafana/provisioning"] == "/etc/grafana/provisioning"
    assert mounts["./grafana/arena.json"] == f"{folder}/arena.json"
    env = grafana["environment"]
    assert env["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"] == f"{folder}/arena.json"
    url_variable = datasources[0]["url"].strip("${}")
    assert env[url_variable] == "http://prometheus:9090"
