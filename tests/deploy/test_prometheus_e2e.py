"""A real Prometheus on loopback scraping real Arena processes: targets up, every alert rule
evaluating, every dashboard query returning data.

`test_prometheus_over_a_short_tournament` is the whole story: `arena up` (referee, worker, beat),
four bots, a two-round tournament. `test_prometheus_scrapes_a_lone_referee` is the referee's part
on its own: `arena serve`, three bots and one match, then the referee stopped.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.ops.ports import free_port
from tests.dbfixtures import database_factory, postgres_server_url  # noqa: F401
from tests.deploy.promserver import PrometheusServer
from tests.deploy.support import (
    REPO,
    alert_rules,
    dashboard_queries,
    eventually,
    family,
    kill_processes_mentioning,
    load_healthcheck,
    log_tail,
    metric_names,
    start_group,
    stop_group,
    wait_for,
)

pytestmark = pytest.mark.integration

ARENA = [sys.executable, "-m", "arena.cli.main"]
REFEREE_METRICS = {
    "arena_connected_bots",
    "arena_active_matches",
    "arena_decisions",
    "arena_decision_round_trip_seconds",
    "arena_decision_timeouts",
    "arena_bad_answers",
    "arena_strikes",
    "arena_forfeits",
    "arena_matches_finished",
    "arena_match_duration_seconds",
    "arena_db_errors",
    "arena_rpc_errors",
}


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture
def workdir() -> Iterator[Path]:
    """A temporary folder for data and logs; whatever still runs from it is killed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="arena-e2e-"))
    folder.chmod(0o755)  # an embedded Postgres under root runs as `nobody`
    try:
        yield folder
    finally:
        kill_processes_mentioning(str(folder))
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def processes(workdir: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """Process groups started by the test, stopped (last first) at the end."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in reversed(started):
        stop_group(process)


@pytest.fixture
def prometheus(prometheus_binary: str, workdir: Path) -> Iterator[PrometheusServer]:
    """A Prometheus server, not yet started; stopped at the end."""
    folder = workdir / "prometheus"
    folder.mkdir()
    server = PrometheusServer(prometheus_binary, folder)
    try:
        yield server
    finally:
        server.stop()


def arena_env(workdir: Path, **settings: str) -> dict[str, str]:
    """The environment of the Arena processes: this test's data dir, admin token and settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"ARENA_DATABASE_URL", "ARENA_REDIS_URL", "PROMETHEUS_MULTIPROC_DIR"}
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    env.update(
        ARENA_DATA_DIR=str(workdir / "data"), ARENA_ADMIN_TOKEN=secrets.token_hex(16), **settings
    )
    return env


def arena(env: dict[str, str], *args: str, timeout: float = 60) -> str:
    """Run an `arena` command to its end; its standard output."""
    done = subprocess.run(
        [*ARENA, *args], env=env, cwd=REPO, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"arena {' '.join(args)}: {done.returncode}\n{done.stderr}"
    return done.stdout


def wait_for_bots(prometheus: PrometheusServer, workdir: Path, query: str, count: int) -> None:
    """Wait for Prometheus to see `count` connected bots; on failure show the processes' logs."""
    try:
        wait_for(
            f"{count} bots connected, seen by Prometheus",
            lambda: prometheus.value(query) == count,
            60,
        )
    except AssertionError as exc:
        tails = "\n".join(
            f"--- {path.name}:\n{path.read_text(errors='replace')[-1500:]}"
            for path in sorted(workdir.rglob("*.log"))
        )
        raise AssertionError(f"{exc}\n{tails}") from None


def start_bots(
    env: dict[str, str], names: list[str], address: str, workdir: Path
) -> list[subprocess.Popen[bytes]]:
    """Register bots through the CLI and run one reference bot process for each."""
    bots = []
    for name in names:
        token = arena(env, "bot", "register", name, "--address", address, "--quiet").strip()
        assert token and "\n" not in token, f"`bot register --quiet` printed {token!r}"
        bots.append(
            start_group(
                [
                    *ARENA,
                    "bot",
                    "run",
                    "--strategy",
                    "heuristic",
                    f"--token={token}",
                    "--address",
                    address,
                ],
                workdir / f"bot-{name}.log",
                env,
            )
        )
    return bots


def start_gated_bot(
    env: dict[str, str], name: str, address: str, workdir: Path, gate: Path
) -> subprocess.Popen[bytes]:
    """Register a bot whose answers wait until `gate` exists (tests/deploy/gated_bot.py)."""
    token = arena(env, "bot", "register", name, "--address", address, "--quiet").strip()
    return start_group(
        [
            sys.executable,
            "-m",
            "tests.deploy.gated_bot",
            f"--token={token}",
            "--address",
            address,
            "--gate",
            str(gate),
        ],
        workdir / f"bot-{name}.log",
        env,
    )


def alive(process: subprocess.Popen[bytes], log: Path, what: str) -> None:
    """Fail with the log's tail if `process` has ended."""
    if process.poll() is not None:
        raise AssertionError(f"{what} exited with {process.returncode}:\n{log_tail(log)}")


# -- checks ---------------------------------------------------------------------------------------
def all_targets_up(prometheus: PrometheusServer, jobs: set[str]) -> Callable[[], Any]:
    """A check: every active target up, and targets of exactly `jobs`."""

    def check() -> Any:
        targets = prometheus.targets()
        seen = {t["labels"]["job"] for t in targets}
        down = [
            (t["scrapeUrl"], t["health"], t["lastError"]) for t in targets if t["health"] != "up"
        ]
        return seen == jobs and not down and targets

    return check


def rules_evaluate(prometheus: PrometheusServer) -> Callable[[], Any]:
    """A check: every rule of alerts.yml is loaded and evaluated with health "ok"."""
    expected = {rule["alert"] for rule in alert_rules()}

    def check() -> Any:
        rules = prometheus.rules()
        loaded = {rule["name"] for rule in rules}
        assert loaded == expected, f"loaded {sorted(loaded)}, expected {sorted(expected)}"
        bad = [(r["name"], r["health"], r.get("lastError")) for r in rules if r["health"] != "ok"]
        errors = [b for b in bad if b[1] == "err"]
        assert not errors, f"rules failing to evaluate: {errors}"
        return not bad and rules

    return check


def queries_without_data(
    prometheus: PrometheusServer, start: float, only: Callable[[set[str]], bool] = lambda _: True
) -> list[tuple[str, str]]:
    """(panel, query) of the dashboard queries that return no data since `start`."""
    empty = []
    for title, expr, target in dashboard_queries():
        if not only({family(name) for name in metric_names(expr)}):
            continue
        if target.get("instant"):
            result = prometheus.query(expr)
        else:
            result = prometheus.query_range(expr, start, step=1.0)
        if not result:
            empty.append((title, expr))
    return empty


def referenced_families() -> set[str]:
    """Metric families the dashboard and the alerts read."""
    names = {name for _, expr, _ in dashboard_queries() for name in metric_names(expr)}
    names |= {name for rule in alert_rules() for name in metric_names(rule["expr"])}
    return {family(name) for name in names}


def seen_families(prometheus: PrometheusServer) -> set[str]:
    """Families in Prometheus's metadata (OpenMetrics names, or text-format ones with _total)."""
    return {family(name) for name in prometheus.metadata()}


def active_alerts(prometheus: PrometheusServer) -> dict[str, list[dict[str, Any]]]:
    """Pending or firing alerts by name."""
    found: dict[str, list[dict[str, Any]]] = {}
    for alert in prometheus.alerts():
        found.setdefault(alert["labels"]["alertname"], []).append(alert)
    return found


# -- the referee alone ----------------------------------------------------------------------------
@pytest.mark.timeout(400)
def test_prometheus_scrapes_a_lone_referee(
    prometheus: PrometheusServer,
    processes: list[subprocess.Popen[bytes]],
    workdir: Path,
    database_factory: Callable[[], str],  # noqa: F811
) -> None:
    started = time.time()
    grpc_port, metrics_port = free_port(), free_port()
    address = f"127.0.0.1:{grpc_port}"
    env = arena_env(workdir, ARENA_DATABASE_URL=database_factory())
    log = workdir / "referee.log"
    referee = start_group(
        [*ARENA, "serve", "--port", str(grpc_port), "--metrics-port", str(metrics_port)], log, env
    )
    processes.append(referee)
    healthcheck = load_healthcheck()

    def serving() -> bool:
        alive(referee, log, "arena serve")
        return healthcheck.check_grpc(address) is None

    wait_for("the referee's gRPC health to say SERVING", serving, timeout=90)

    prometheus.start(
        {
            "arena-referee": [f"127.0.0.1:{metrics_port}"],
            "arena-worker": [],
            "arena-beat": [],
            "arena-web": [],
            "arena-runner": [],
        }
    )
    wait_for("every target up", all_targets_up(prometheus, {"arena-referee", "prometheus"}), 60)
    wait_for("every rule evaluated", rules_evaluate(prometheus), 60)
    missing = referenced_families() - seen_families(prometheus)
    assert not missing, f"Prometheus never saw these metrics from the referee: {sorted(missing)}"

    # Beat is not scraped at all: ArenaBeatDown must notice (absent), nothing about the referee.
    def unexpected_alerts() -> list[str]:
        return sorted(set(active_alerts(prometheus)) ^ {"ArenaBeatDown"})

    eventually("active alerts differing from ArenaBeatDown alone", unexpected_alerts, 30)

    # `gated` holds its answers until the test opens the gate, so the match is certainly seen in
    # progress by a scrape, however slow the machine; its clock is long enough never to expire.
    bots = ["ada", "bo", "gated"]
    gate = workdir / "gate-open"
    processes.extend(start_bots(env, bots[:2], address, workdir))
    processes.append(start_gated_bot(env, "gated", address, workdir, gate))
    wait_for_bots(prometheus, workdir, 'sum(arena_connected_bots{job="arena-referee"})', 3)
    match = f"match --game hart --bots {','.join(bots)} --per-decision 120 --address {address}"
    match_log = workdir / "match.log"
    running = start_group([*ARENA, *match.split()], match_log, env)
    processes.append(running)
    wait_for(
        "the match scraped in progress",
        lambda: prometheus.value('sum(arena_active_matches{job="arena-referee"})') == 1,
        60,
    )
    gate.touch()
    assert running.wait(timeout=180) == 0, log_tail(match_log)
    assert "result" in match_log.read_text(), log_tail(match_log)
    wait_for(
        "the finished match scraped",
        lambda: prometheus.value('sum(arena_matches_finished_total{job="arena-referee"})') == 1,
        30,
    )
    decisions = prometheus.value('sum(arena_decisions_total{job="arena-referee",game="hart"})')
    assert decisions and decisions > 10
    assert prometheus.value("max_over_time(sum(arena_active_matches)[5m:1s])") == 1
    eventually(
        "referee panel queries without data",
        lambda: queries_without_data(prometheus, started, only=lambda f: f <= REFEREE_METRICS),
        30,
    )

    stop_group(referee)
    down = wait_for(
        "ArenaRefereeDown pending once the referee stops",
        lambda: active_alerts(prometheus).get("ArenaRefereeDown"),
        30,
    )
    assert down[0]["labels"]["instance"] == f"127.0.0.1:{metrics_port}"
    assert down[0]["state"] == "pending", "for: 1m has not passed yet"


# -- the whole stack ------------------------------------------------------------------------------
@pytest.mark.timeout(900)
def test_prometheus_over_a_short_tournament(
    prometheus: PrometheusServer,
    processes: list[subprocess.Popen[bytes]],
    workdir: Path,
    database_factory: Callable[[], str],  # noqa: F811
) -> None:
    started = time.time()
    port, referee_m, worker_m, beat_m, web, web_m, runner_m = (free_port() for _ in range(7))
    address = f"127.0.0.1:{port}"
    # A database of our own; Redis is left unset so that `arena up` embeds one in the data dir.
    env = arena_env(workdir, ARENA_DATABASE_URL=database_factory())
    log = workdir / "arena-up.log"
    up = (
        f"up --data-dir {workdir / 'data'} --port {port} --referee-metrics-port {referee_m} "
        f"--worker-metrics-port {worker_m} --beat-metrics-port {beat_m} --concurrency 2 "
        f"--web-port {web} --web-metrics-port {web_m} --runner-metrics-port {runner_m}"
    )
    stack = start_group([*ARENA, *up.split()], log, env)
    processes.append(stack)

    def is_up() -> bool:
        alive(stack, log, "arena up")
        return "arena is up" in log.read_text(errors="replace")

    wait_for("`arena is up`", is_up, timeout=180)

    prometheus.start(
        {
            "arena-referee": [f"127.0.0.1:{referee_m}"],
            "arena-worker": [f"127.0.0.1:{worker_m}"],
            "arena-beat": [f"127.0.0.1:{beat_m}"],
            "arena-web": [f"127.0.0.1:{web_m}"],
            # `arena up` starts a runner only where bwrap is installed.
            "arena-runner": [f"127.0.0.1:{runner_m}"] if shutil.which("bwrap") else [],
        }
    )
    jobs = {"arena-referee", "arena-worker", "arena-beat", "arena-web", "prometheus"}
    jobs |= {"arena-runner"} if shutil.which("bwrap") else set()
    wait_for("every target up", all_targets_up(prometheus, jobs), 90)
    assert load_healthcheck().check_grpc(address) is None, "the container health probe passes"

    # `gated` holds its answers until the gate opens: round 1's match is certainly scraped in
    # progress, however slow the machine. The clock is long enough never to expire meanwhile.
    bots = ["ada", "bo", "cy", "gated"]
    gate = workdir / "gate-open"
    processes.extend(start_bots(env, bots[:3], address, workdir))
    processes.append(start_gated_bot(env, "gated", address, workdir, gate))
    wait_for_bots(prometheus, workdir, "sum(arena_connected_bots)", 4)
    create = (
        f"tournament create --game hart --bots {','.join(bots)} --rounds 2 --table-size 4 "
        f"--per-decision 120 --start-in 1 --address {address}"
    )
    created = arena(env, *create.split())
    ids = re.findall(r"\d+", created)
    assert ids, f"`tournament create` printed no id: {created!r}"
    wait_for(
        "a match scraped in progress",
        lambda: prometheus.value('sum(arena_active_matches{job="arena-referee"})') == 1,
        120,
    )
    # A spectator opens the home page's live stream: the web's stream metrics get their samples.
    with urllib.request.urlopen(f"http://127.0.0.1:{web}/api/home/live", timeout=30) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert stream.read1(1), "the live stream sends its first event"
    gate.touch()
    arena(env, "tournament", "show", ids[0], "--address", address, "--follow", timeout=400)

    wait_for("every target still up", all_targets_up(prometheus, jobs), 30)
    wait_for("every rule evaluated", rules_evaluate(prometheus), 60)
    # Each process contributed what only it can: the gauges from beat lag by its refresh period.
    expectations = {
        'sum(arena_decisions_total{job="arena-referee", game="hart"}) > 0': "decisions",
        'sum(arena_matches_finished_total{job="arena-referee"}) >= 2': "two matches finished",
        "max_over_time(sum(arena_active_matches)[10m:1s]) >= 1": "a match seen in progress",
        'sum(arena_tasks_total{job="arena-worker", outcome="success"}) > 0': "tasks succeeded",
        'sum(arena_round_duration_seconds_count{job="arena-worker"}) >= 2': "two rounds timed",
        'sum(arena_pairing_seconds_count{job="arena-worker"}) >= 1': "a pairing timed",
        'sum(arena_rating_update_seconds_count{job="arena-worker"}) >= 1': "a rating timed",
        'sum(arena_tournaments{job="arena-beat", status="finished"}) >= 1': "tournament done",
        'count(arena_bot_rating{job="arena-beat", game="hart"}) == 4': "four bots rated",
        'count(arena_celery_queue_length{job="arena-beat"}) >= 1': "a queue measured",
        'count(arena_rounds_in_progress{job="arena-beat"}) == 1': "rounds gauge",
        'count(arena_oldest_round_age_seconds{job="arena-beat"}) == 1': "oldest round gauge",
        'count(arena_round_expected_seconds{job="arena-beat"}) == 1': "expected round gauge",
    }

    def unmet() -> list[str]:
        return [why for expr, why in expectations.items() if not prometheus.query(expr)]

    eventually("metrics missing", unmet, 90)
    missing = referenced_families() - seen_families(prometheus)
    assert not missing, f"Prometheus never saw these metrics: {sorted(missing)}"
    eventually(
        "dashboard queries without data", lambda: queries_without_data(prometheus, started), 90
    )
    firing = {n: a for n, a in active_alerts(prometheus).items() if a[0]["state"] == "firing"}
    assert not firing, f"alerts firing on a healthy run: {firing}"

    stop_group(stack, grace=60)
    leftovers = kill_processes_mentioning(str(workdir / "data"))
    assert not leftovers, f"`arena up` left processes behind after SIGTERM: {leftovers}"
