"""deploy/prometheus: promtool accepts the config and the rules, and the alert unit tests pass."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tests.deploy.support import (
    ALERTS_TEST_YML,
    ALERTS_YML,
    COMPOSE,
    OPERATIONS,
    PROMETHEUS_DIR,
    PROMETHEUS_YML,
    alert_rules,
    load_yaml,
    run,
)

# The issue's alert list, each with the rule that answers it.
REQUIRED_ALERTS = {
    "a referee down": "ArenaRefereeDown",
    "no bot connected while a tournament is running": "ArenaNoBotsConnected",
    "decision timeouts above a rate": "ArenaDecisionTimeoutsHigh",
    "a round stuck longer than its expected time": "ArenaRoundStuck",
    "the Celery queue growing": "ArenaCeleryQueueGrowing",
    "database errors": "ArenaDatabaseErrors",
}
# Metrics port of each Arena process, as fixed in docs/operations.md.
JOB_PORTS = {
    "arena-referee": 9101,
    "arena-worker": 9102,
    "arena-beat": 9103,
    "arena-web": 9104,
    "arena-runner": 9109,
}


def test_promtool_check_config(promtool: str) -> None:
    code, output = run([promtool, "check", "config", PROMETHEUS_YML.name], cwd=PROMETHEUS_DIR)
    assert code == 0, output
    assert "SUCCESS" in output and "1 rule files found" in output, output


def test_promtool_check_rules(promtool: str) -> None:
    code, output = run([promtool, "check", "rules", ALERTS_YML.name], cwd=PROMETHEUS_DIR)
    assert code == 0, output
    assert f"SUCCESS: {len(alert_rules())} rules found" in output, output


def test_promtool_test_rules(promtool: str) -> None:
    code, output = run([promtool, "test", "rules", ALERTS_TEST_YML.name], cwd=PROMETHEUS_DIR)
    assert code == 0, output
    assert "SUCCESS" in output, output


def test_promtool_test_rules_fails_on_a_wrong_expectation(promtool: str, tmp_path: Path) -> None:
    """The unit tests can fail: a threshold raised tenfold breaks them."""
    (tmp_path / "alerts.yml").write_text(ALERTS_YML.read_text().replace("> 0.05", "> 0.5"))
    (tmp_path / "alerts_test.yml").write_text(ALERTS_TEST_YML.read_text())
    code, output = run([promtool, "test", "rules", "alerts_test.yml"], cwd=tmp_path)
    assert code != 0, output
    assert "ArenaDecisionTimeoutsHigh" in output, output


def test_the_issue_alerts_exist_with_severity_and_runbook() -> None:
    rules = {rule["alert"]: rule for rule in alert_rules()}
    assert set(REQUIRED_ALERTS.values()) <= set(rules)
    for name, rule in rules.items():
        assert rule["labels"]["severity"] in {"critical", "warning"}, name
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], name
        assert rule["annotations"]["runbook"] == f"docs/operations.md#{name.lower()}", name


def test_every_alert_has_a_unit_test_where_it_fires_and_one_where_it_does_not() -> None:
    cases = [
        case for test in load_yaml(ALERTS_TEST_YML)["tests"] for case in test["alert_rule_test"]
    ]
    for name in (rule["alert"] for rule in alert_rules()):
        mine = [case for case in cases if case["alertname"] == name]
        assert any(case["exp_alerts"] for case in mine), f"{name} is never expected to fire"
        assert any(not case["exp_alerts"] for case in mine), f"{name} is never expected quiet"


def test_every_alert_is_explained_in_the_operations_guide() -> None:
    headings = set(re.findall(r"^### (\w+)$", OPERATIONS.read_text(), flags=re.MULTILINE))
    alerts = {rule["alert"] for rule in alert_rules()}
    assert alerts <= headings, f"alerts without a section: {sorted(alerts - headings)}"
    assert {h for h in headings if h.startswith("Arena")} == alerts


def test_scrape_jobs_cover_every_arena_process_in_compose() -> None:
    config = load_yaml(PROMETHEUS_YML)
    assert config["rule_files"] == ["alerts.yml"]
    targets = {
        job["job_name"]: [t for static in job["static_configs"] for t in static["targets"]]
        for job in config["scrape_configs"]
    }
    assert set(JOB_PORTS) <= set(targets)
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    commands = {name: " ".join(map(str, s.get("command", []))) for name, s in services.items()}
    arena_services = {name for name, cmd in commands.items() if "arena serve" in cmd}
    arena_services |= {name for name, cmd in commands.items() if "workers.app" in cmd}
    arena_services |= {name for name, cmd in commands.items() if cmd.startswith("arena web")}
    arena_services |= {name for name, cmd in commands.items() if cmd.startswith("arena runner")}
    scraped = {t.partition(":")[0] for job in JOB_PORTS for t in targets[job]}
    assert scraped == arena_services, "every referee, worker, beat, web and runner is scraped"
    for job, port in JOB_PORTS.items():
        assert all(t.endswith(f":{port}") for t in targets[job]), (job, targets[job])
    workers = {name for name, cmd in commands.items() if " worker " in f" {cmd} "}
    assert {t.partition(":")[0] for t in targets["arena-worker"]} == workers
