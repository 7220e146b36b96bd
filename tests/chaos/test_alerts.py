"""The soak's `alerts` check (arena/chaos/alerts.py) on small synthetic scrapes: promtool passes
when each long fault's alert fired and resolved, and fails naming the fault when one did not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.chaos.alerts import (
    Incident,
    Report,
    Rule,
    Scrape,
    check,
    failures,
    load_rules,
    metric_names,
    plan,
    seconds,
)
from tests.deploy.support import ALERTS_YML, ensure_debian_package, load_yaml

STEP = 5.0
TICKS = 120  # ten minutes: the takeover alert's 5-minute window lapses inside it
REF0 = "127.0.0.1:9001"
REF1 = "127.0.0.1:9002"
WORKER = "127.0.0.1:9004"
KILL = Incident("t=100s referee-kill #0 for 80s", "referee-kill", 100.0, 180.0, REF0, True)
SHORT = Incident("t=300s worker-kill #0 for 3s", "worker-kill", 300.0, 303.0, WORKER)
BOT = Incident("t=310s bot-kill #4 for 2s", "bot-kill", 310.0, 312.0)


@pytest.fixture(scope="module")
def promtool() -> str:
    path = ensure_debian_package("promtool", "prometheus")
    assert path, "promtool is missing: apt-get install prometheus"
    return path


@pytest.fixture(scope="module")
def rules() -> dict[str, Rule]:
    return load_rules(load_yaml(ALERTS_YML))


def _scrape(*, down: range, took_over_at: int | None) -> Scrape:
    """Referee 0 unscrapable during `down` (ticks), referee 1 counting a lapsed takeover from
    `took_over_at`, a worker always up."""
    scrape = Scrape(STEP)
    for tick in range(TICKS):
        scrape.add(tick, "up", {"job": "arena-referee", "instance": REF0}, 0 if tick in down else 1)
        scrape.add(tick, "up", {"job": "arena-referee", "instance": REF1}, 1)
        scrape.add(tick, "up", {"job": "arena-worker", "instance": WORKER}, 1)
        scrape.add(tick, "up", {"job": "arena-beat", "instance": "127.0.0.1:9003"}, 1)
        taken = took_over_at is not None and tick >= took_over_at
        labels = {"job": "arena-referee", "instance": REF1, "referee": "ref-1", "reason": "lapsed"}
        scrape.add(tick, "arena_referee_takeovers_total", labels, 3 if taken else 0)
    return scrape


def _check(scrape: Scrape, rules: dict[str, Rule], promtool: str, tmp_path: Path) -> Report:
    return check(scrape, [KILL, SHORT, BOT], ALERTS_YML, rules, tmp_path, promtool)


def test_a_long_referee_kill_fires_its_alerts_which_resolve(
    promtool: str, rules: dict[str, Rule], tmp_path: Path
) -> None:
    # Down from t=100s to t=180s (ticks 20-35); referee 1 takes its matches over at t=120s.
    report = _check(_scrape(down=range(20, 36), took_over_at=24), rules, promtool, tmp_path)
    assert report.violations == [], report
    assert "promtool: 2 firing and 2 resolution assertions" in " ".join(report.notes), report
    assert any("too short for ArenaWorkerDown" in note for note in report.notes), report
    assert any("bot-kill #4" in note and "no alert" in note for note in report.notes), report
    assert report.summary()[:6] == [
        "   1 x ArenaRefereeDown: asserted resolved",
        "   1 x ArenaRefereeTakeover: asserted resolved",
        "   1 x bot-kill: no alert meant",
        "   1 x referee-kill: ArenaRefereeDown: asserted to fire",
        "   1 x referee-kill: ArenaRefereeTakeover: asserted to fire",
        "   1 x worker-kill: ArenaWorkerDown: too short for its for: 120s",
    ], report.summary()
    assert report.summary()[6].startswith("promtool: 2 firing and 2 resolution"), report


def test_a_fault_whose_alert_never_fired_fails_the_check(
    promtool: str, rules: dict[str, Rule], tmp_path: Path
) -> None:
    # The planted gap: the scrape never saw referee 0 down, and no takeover was counted.
    report = _check(_scrape(down=range(0), took_over_at=None), rules, promtool, tmp_path)
    assert sorted(report.violations) == [
        f"{KILL.label}: ArenaRefereeDown did not fire between t=100s and t=260s",
        f"{KILL.label}: ArenaRefereeTakeover did not fire between t=100s and t=200s",
    ], report


def test_an_alert_that_never_resolves_fails_the_check(
    promtool: str, rules: dict[str, Rule], tmp_path: Path
) -> None:
    report = _check(_scrape(down=range(20, TICKS), took_over_at=24), rules, promtool, tmp_path)
    assert report.violations == [
        "ArenaRefereeDown was still firing at t=195s, after its last cause had cleared"
    ], report


def test_what_the_scrape_ends_too_early_for_is_a_note_not_a_violation(
    rules: dict[str, Rule],
) -> None:
    planned = plan(_scrape(down=range(20, 36), took_over_at=24), [KILL], rules)
    assert len(planned.firing) == 2 and len(planned.resolved) == 2
    short = Scrape(STEP)
    for tick in range(56):  # 275 s: the takeover's 5-minute window is still open
        short.add(tick, "up", {"job": "arena-referee", "instance": REF0}, 1)
    planned = plan(short, [KILL], rules)
    assert [a.key[0] for a in planned.resolved] == ["ArenaRefereeDown"]
    assert any("ArenaRefereeTakeover: resolution not observed" in n for n in planned.notes)


def test_a_later_outage_that_may_cause_takeovers_moves_their_resolution_later(
    rules: dict[str, Rule],
) -> None:
    outage = Incident("t=200s postgres-stop #0 for 5s", "postgres-stop", 200.0, 205.0)
    planned = plan(_scrape(down=range(20, 36), took_over_at=24), [KILL, outage], rules)
    resolved = {a.key[0]: a.key[1] for a in planned.resolved}
    assert resolved["ArenaRefereeTakeover"] == 205 + 300 + 15, resolved


def test_a_takeover_alert_is_expected_only_when_matches_were_taken_over(
    rules: dict[str, Rule],
) -> None:
    paused = Incident("t=10s referee-pause #1 for 9s", "referee-pause", 10.0, 19.0, REF1)
    planned = plan(_scrape(down=range(0), took_over_at=None), [paused], rules)
    assert planned.firing == [] and planned.resolved == []
    assert planned.notes == [
        f"{paused.label}: too short for ArenaRefereeDown (9s of condition, for: 60s)",
        f"{paused.label}: ArenaRefereeTakeover not expected (no takeover)",
    ]


def test_promtool_failures_are_named_by_their_fault_and_others_kept_verbatim(
    rules: dict[str, Rule],
) -> None:
    planned = plan(_scrape(down=range(20, 36), took_over_at=24), [KILL], rules)
    first = planned.firing[0]
    output = f"  FAILED:\n    expr: {json.dumps(first.key[0])}, time: 4m20s,\n"
    output += "    alertname: ArenaRefereeDown, time: 3m15s,\n"
    assert failures(output, [*planned.firing, *planned.resolved]) == [
        first.failure,
        "ArenaRefereeDown was still firing at t=195s, after its last cause had cleared",
    ]
    assert failures("  FAILED:\n    something else\n", []) == ["FAILED:", "something else"]


def test_the_rules_are_read_for_their_timing_and_metrics() -> None:
    document = load_yaml(ALERTS_YML)
    rules = load_rules(document)
    assert rules["ArenaRefereeDown"] == Rule("ArenaRefereeDown", 60.0, 0.0)
    assert rules["ArenaDatabaseErrors"] == Rule("ArenaDatabaseErrors", 120.0, 300.0)
    assert {"up", "arena_referee_takeovers_total", "arena_db_errors_total"} <= metric_names(
        document
    )
    assert seconds("1m30s") == 90.0
    with pytest.raises(ValueError, match="not a Prometheus duration"):
        seconds("5 minutes")
