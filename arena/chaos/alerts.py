"""The `alerts` check: every fault of a soak fired its alert, in the Prometheus rules' own terms.

The soak scrapes every process's /metrics at a fixed interval (`Scrape`: the series the alert
rules read, and `up` per target as Prometheus records it). At the end `check` writes a
`promtool test rules` file whose input series are those samples and whose assertions say, for
each injected fault (`Incident`) long enough for an alert's `for:`, that the alert mapped to its
kind (`ALERTS_FOR`) was firing between the fault's start and its deadline (a PromQL test on the
`ALERTS` series the rule evaluation writes), and, for each alert so expected, that it was
resolved once the last fault that could cause it was over (an `alert_rule_test` with no alerts).
A fault too short for an alert, or an alert whose deadline falls after the last scrape, is a
note, not a violation. The test file is JSON (which is YAML) in the soak's folder; promtool's
failures are mapped back to the fault they assert about.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SeriesKey = tuple[str, tuple[tuple[str, str], ...]]
"""A series: its metric name and its sorted labels."""

ALERTS_FOR: Mapping[str, tuple[tuple[str, bool], ...]] = {
    "referee-kill": (("ArenaRefereeDown", True), ("ArenaRefereeTakeover", False)),
    "referee-pause": (("ArenaRefereeDown", True), ("ArenaRefereeTakeover", False)),
    "referee-partition": (("ArenaLiveRefereesLow", False), ("ArenaRefereeTakeover", False)),
    "worker-kill": (("ArenaWorkerDown", True),),
    "redis-stop": (("ArenaLiveRefereesLow", False),),
    "postgres-stop": (("ArenaDatabaseErrors", False),),
    "bot-kill": (),
}
"""The alerts each fault kind should raise, and whether the alert names the faulted target (its
`instance` label); ArenaRefereeTakeover names the referee that took over, not the one lost."""
MAY_CAUSE: Mapping[str, tuple[str, ...]] = {
    "postgres-stop": ("ArenaRefereeTakeover",),
    "redis-stop": ("ArenaRefereeTakeover",),
}
"""Alerts a fault kind may raise without being expected to (an outage longer than the lease ends
in takeovers): they count only in when the alert must have resolved."""
NEEDS_TAKEOVER = frozenset({"ArenaRefereeTakeover"})
"""Alerts expected only when the fault's referee had matches taken over (`Incident.took_over`)."""
MARGIN_SCRAPES = 3
"""Scrape intervals allowed for a condition to be seen and an alert to turn firing or resolved."""
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


@dataclass(frozen=True, slots=True)
class Rule:
    """One alerting rule, as far as timing goes."""

    name: str
    hold: float
    """Its `for:`, in seconds."""
    window: float
    """The longest range its expression reads (`[5m]`), in seconds; 0 when it reads none."""


@dataclass(frozen=True, slots=True)
class Incident:
    """One injected fault, as the check sees it (seconds from the first scrape)."""

    label: str
    """How the report names it (the schedule's line)."""
    kind: str
    start: float
    end: float
    instance: str = ""
    """The faulted process's metrics target, when it has one."""
    took_over: bool = False
    """Whether another referee took the faulted referee's matches over."""


@dataclass
class Scrape:
    """Samples scraped every `interval` seconds: tick i is at i * interval."""

    interval: float
    ticks: int = 0
    series: dict[SeriesKey, dict[int, float]] = field(default_factory=dict)

    def add(self, tick: int, name: str, labels: Mapping[str, str], value: float) -> None:
        """Record one sample."""
        key = (name, tuple(sorted(labels.items())))
        self.series.setdefault(key, {})[tick] = value
        self.ticks = max(self.ticks, tick + 1)

    @property
    def end(self) -> float:
        """The time of the last tick."""
        return max(0, self.ticks - 1) * self.interval


@dataclass
class Report:
    """What the check found: violations (one sentence each) and notes."""

    violations: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What could not be asserted, and why, fault by fault."""
    tally: Counter[str] = field(default_factory=Counter)
    """What was asserted or not, counted by fault kind (or alert) and reason."""

    def summary(self) -> list[str]:
        """The tally, one line per kind and reason, then the notes that name no fault."""
        lines = [f"{count:4d} x {what}" for what, count in sorted(self.tally.items())]
        return lines + [note for note in self.notes if note.startswith(("promtool", "no fault"))]


def load_rules(document: Mapping[str, Any]) -> dict[str, Rule]:
    """The alerting rules of a Prometheus rules file (parsed), by name."""
    out = {}
    for group in document["groups"]:
        for rule in group["rules"]:
            if "alert" in rule:
                windows = [seconds(m) for m in re.findall(r"\[(\w+)(?::\w*)?\]", rule["expr"])]
                hold = seconds(str(rule.get("for", "0s")))
                out[rule["alert"]] = Rule(rule["alert"], hold, max(windows, default=0.0))
    return out


def metric_names(document: Mapping[str, Any]) -> frozenset[str]:
    """The metric names a Prometheus rules file (parsed) reads (with `up`)."""
    text = "\n".join(str(rule["expr"]) for group in document["groups"] for rule in group["rules"])
    return frozenset({"up", *re.findall(r"\b(arena_[a-z0-9_]+)\b", text)})


def seconds(duration: str) -> float:
    """A Prometheus duration (`1m30s`, `5m`, `0m`) in seconds."""
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)", duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        raise ValueError(f"not a Prometheus duration: {duration!r}")
    return sum(float(n) * _UNITS[u] for n, u in parts)


@dataclass(frozen=True, slots=True)
class _Assertion:
    """One assertion of the test file, and the sentence that reports it failing."""

    key: tuple[str, int]
    """(expr or alert name, eval time in whole seconds): how promtool's output names it."""
    entry: dict[str, Any]
    failure: str


@dataclass
class Plan:
    """The promtool test of a scrape: its assertions and the notes on what it cannot assert."""

    firing: list[_Assertion] = field(default_factory=list)
    resolved: list[_Assertion] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tally: Counter[str] = field(default_factory=Counter)

    def note(self, incident: Incident, detail: str, reason: str) -> None:
        """Record that nothing is asserted about `incident` for `reason` (`detail` for it)."""
        self.notes.append(f"{incident.label}: {detail}")
        self.tally[f"{incident.kind}: {reason}"] += 1


def plan(scrape: Scrape, incidents: Sequence[Incident], rules: Mapping[str, Rule]) -> Plan:
    """The assertions for `incidents` on `scrape`, and notes on the ones that cannot be made."""
    out = Plan()
    step = scrape.interval
    margin = MARGIN_SCRAPES * step
    clears: dict[str, float] = {}
    expected: set[str] = set()
    for incident in incidents:
        mapped = ALERTS_FOR.get(incident.kind, ())
        for name in MAY_CAUSE.get(incident.kind, ()):
            ending = incident.end + rules[name].window + margin
            clears[name] = max(clears.get(name, 0.0), ending)
        if not mapped:
            out.note(incident, "no alert is meant for this kind of fault", "no alert meant")
        for name, targeted in mapped:
            rule = rules[name]
            # How long the rule's condition holds: the outage, plus its range for rate()s.
            holds = incident.end - incident.start + rule.window
            clears[name] = max(clears.get(name, 0.0), incident.end + rule.window + margin)
            deadline = _tick(incident.end + rule.hold + margin + step, step)
            if name in NEEDS_TAKEOVER and not incident.took_over:
                out.note(incident, f"{name} not expected (no takeover)", f"{name}: no takeover")
            elif holds < rule.hold + margin:
                out.note(
                    incident,
                    f"too short for {name} ({holds:.0f}s of condition, for: {rule.hold:.0f}s)",
                    f"{name}: too short for its for: {rule.hold:.0f}s",
                )
            elif deadline > scrape.end:
                out.note(
                    incident,
                    f"{name} could still fire after the last scrape "
                    f"(deadline t={deadline}s, scraped until t={scrape.end:.0f}s)",
                    f"{name}: could fire after the last scrape",
                )
            else:
                expected.add(name)
                out.tally[f"{incident.kind}: {name}: asserted to fire"] += 1
                selector = f'alertname="{name}",alertstate="firing"'
                if targeted and incident.instance:
                    selector += f',instance="{incident.instance}"'
                begin = max(0, int(incident.start))
                expr = f"max(max_over_time(ALERTS{{{selector}}}[{deadline - begin}s]))"
                out.firing.append(
                    _Assertion(
                        (expr, deadline),
                        {
                            "expr": expr,
                            "eval_time": f"{deadline}s",
                            "exp_samples": [{"labels": "{}", "value": 1}],
                        },
                        f"{incident.label}: {name} did not fire between t={begin}s "
                        f"and t={deadline}s",
                    )
                )
    for name in sorted(expected):
        when = _tick(clears[name], step)
        if when > scrape.end:
            out.notes.append(
                f"{name}: resolution not observed (its last cause clears at t={when}s, "
                f"scraped until t={scrape.end:.0f}s)"
            )
            out.tally[f"{name}: resolution not observed (scrape too short)"] += 1
            continue
        out.tally[f"{name}: asserted resolved"] += 1
        out.resolved.append(
            _Assertion(
                (name, when),
                {"eval_time": f"{when}s", "alertname": name, "exp_alerts": []},
                f"{name} was still firing at t={when}s, after its last cause had cleared",
            )
        )
    return out


def horizon(incidents: Sequence[Incident], rules: Mapping[str, Rule], step: float) -> float:
    """The time (seconds from the first scrape) the scrape must reach for every assertion about
    `incidents` to be made: each alert's deadline to fire and the moment it must have resolved."""
    margin = MARGIN_SCRAPES * step
    latest = 0.0
    for incident in incidents:
        for name in MAY_CAUSE.get(incident.kind, ()):
            latest = max(latest, _tick(incident.end + rules[name].window + margin, step))
        for name, _ in ALERTS_FOR.get(incident.kind, ()):
            if name in NEEDS_TAKEOVER and not incident.took_over:
                continue
            rule = rules[name]
            fire = _tick(incident.end + rule.hold + margin + step, step)
            latest = max(latest, fire, _tick(incident.end + rule.window + margin, step))
    return latest


def _tick(moment: float, step: float) -> int:
    """`moment` rounded up to a whole tick, in whole seconds."""
    ticks = -(-moment // step)
    return int(ticks * step)


def test_file(scrape: Scrape, planned: Plan, rules_path: Path) -> dict[str, Any]:
    """The `promtool test rules` file of `planned` on `scrape`."""
    step = f"{scrape.interval:g}s"
    return {
        "rule_files": [str(rules_path.resolve())],
        "evaluation_interval": step,
        "tests": [
            {
                "interval": step,
                "input_series": [
                    {"series": _series_text(key), "values": _values(samples, scrape.ticks)}
                    for key, samples in sorted(scrape.series.items())
                ],
                "promql_expr_test": [a.entry for a in planned.firing],
                "alert_rule_test": [a.entry for a in planned.resolved],
            }
        ],
    }


def _series_text(key: SeriesKey) -> str:
    name, labels = key
    quoted = ",".join(
        f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
        for k, v in labels
    )
    return f"{name}{{{quoted}}}"


def _values(samples: Mapping[int, float], ticks: int) -> str:
    """Promtool's notation: a value per tick, `stale` where a series vanished (as Prometheus
    marks it when a scrape fails or omits it), `_` while it stays away."""
    out = []
    for tick in range(ticks):
        if tick in samples:
            out.append(repr(samples[tick]))
        else:
            out.append("stale" if tick - 1 in samples else "_")
    return " ".join(out)


def check(
    scrape: Scrape,
    incidents: Sequence[Incident],
    rules_path: Path,
    rules: Mapping[str, Rule],
    folder: Path,
    promtool: str = "promtool",
) -> Report:
    """Write the test of `incidents` on `scrape` (the rules of `rules_path`, parsed as `rules`)
    into `folder`, run promtool on it, and report."""
    planned = plan(scrape, incidents, rules)
    report = Report(notes=list(planned.notes), tally=planned.tally)
    if not planned.firing and not planned.resolved:
        report.notes.append("no fault was long enough for any alert: nothing to assert")
        return report
    path = folder / "alerts_soak_test.yml"
    # JSON is YAML, and needs no YAML library here.
    path.write_text(json.dumps(test_file(scrape, planned, rules_path), indent=1))
    try:
        done = subprocess.run(
            [promtool, "test", "rules", path.name],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        report.violations.append(f"promtool could not run: {exc}")
        return report
    output = done.stdout + done.stderr
    report.notes.append(
        f"promtool: {len(planned.firing)} firing and {len(planned.resolved)} resolution "
        f"assertions on {len(scrape.series)} series x {scrape.ticks} scrapes: "
        + ("passed" if done.returncode == 0 else "FAILED")
    )
    if done.returncode != 0:
        report.violations += failures(output, [*planned.firing, *planned.resolved])
    return report


def failures(output: str, assertions: Sequence[_Assertion]) -> list[str]:
    """The assertions promtool's `output` says failed; its own lines when none can be named."""
    by_key = {a.key: a.failure for a in assertions}
    found = []
    for kind, subject, when in re.findall(
        r'(expr|alertname): ("(?:[^"\\]|\\.)*"|\w+), time: (\w+)', output
    ):
        name = json.loads(subject) if kind == "expr" else subject
        found.append(by_key.get((name, int(seconds(when))), f"promtool: {kind} {name} at {when}"))
    if not found:
        found = [line.strip() for line in output.splitlines() if line.strip()][-10:]
    return found
