"""deploy/compose.yaml: the services the operations guide names, health checks, no secrets."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.support import (
    COMPOSE,
    DEPLOY,
    OPERATIONS,
    REPO,
    ensure_debian_package,
    load_yaml,
)

REQUIRED_SECRETS = {
    "POSTGRES_PASSWORD",
    "REDIS_PASSWORD",
    "ARENA_ADMIN_TOKEN",
    "GRAFANA_ADMIN_PASSWORD",
}
REFEREES = ("referee-0", "referee-1")
SECRET_KEY = re.compile(r"PASSWORD|TOKEN|SECRET|KEY")
URL_WITH_CREDENTIALS = re.compile(r"^[a-z+]+://([^@/]*)@")


def services() -> dict[str, Any]:
    """The services of the compose file (anchors and merge keys resolved)."""
    loaded: dict[str, Any] = load_yaml(COMPOSE)["services"]
    return loaded


def documented_services() -> list[str]:
    """The services named in the table of the guide's "Deploying with containers" section."""
    section = OPERATIONS.read_text().split("## Deploying with containers", 1)[1].split("\n## ")[0]
    return re.findall(r"^\| `([a-z0-9-]+)` \|", section, flags=re.MULTILINE)


def readme_services() -> list[str]:
    """The services the README's "Deploying" section says compose.yaml runs."""
    section = (REPO / "README.md").read_text().split("## Deploying", 1)[1].split("\n## ")[0]
    sentence = re.search(r"runs the services (.*?)(?:, with|;|\.\s)", section, flags=re.DOTALL)
    assert sentence, "the README's Deploying section names the compose services"
    return re.findall(r"`([a-z0-9-]+)`", sentence.group(1))


def environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's environment as a mapping."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {key: str(value) for key, value in env.items()}


def test_the_services_are_exactly_those_the_guide_names() -> None:
    named = documented_services()
    assert len(named) == len(set(named))
    expected = {"postgres", "redis", "referee-0", "referee-1", "beat", "prometheus", "grafana"}
    assert expected <= set(named)
    assert len([n for n in named if n.startswith("referee-")]) == 2, "two referees"
    assert len([n for n in named if n.startswith("worker-")]) == 2, "two Celery workers"
    assert set(services()) == set(named)


def test_every_service_the_readme_names_is_in_the_file() -> None:
    named = readme_services()
    assert len(named) >= 8
    assert set(named) == set(services()) == set(documented_services())


def test_every_service_restarts_and_has_a_health_check() -> None:
    for name, service in services().items():
        assert service.get("restart") in {"unless-stopped", "always"}, name
        check = service.get("healthcheck", {})
        assert check.get("test") and check.get("interval") and check.get("retries"), name


def test_dependencies_wait_for_health() -> None:
    all_services = services()
    for name, service in all_services.items():
        for dependency, condition in (service.get("depends_on") or {}).items():
            assert dependency in all_services, (name, dependency)
            assert condition == {"condition": "service_healthy"}, (name, dependency)
    for name in (*REFEREES, "worker-1", "worker-2", "beat"):
        assert {"postgres", "redis"} <= set(all_services[name]["depends_on"]), name


def test_no_secret_is_written_in_the_file() -> None:
    for name, service in services().items():
        for key, value in environment(service).items():
            if SECRET_KEY.search(key):
                assert re.fullmatch(r"\$\{[A-Z_]+(:\?[^}]*)?\}", value), (name, key, value)
            userinfo = URL_WITH_CREDENTIALS.match(value)
            if userinfo and ":" in userinfo.group(1):
                password = userinfo.group(1).split(":", 1)[1]
                assert password.startswith("${"), (name, key, value)
    required = set(re.findall(r"\$\{([A-Z_]+):\?", COMPOSE.read_text()))
    assert required == REQUIRED_SECRETS


def test_the_environment_example_lists_every_setting_without_values() -> None:
    example = (DEPLOY / "env.example").read_text()
    settings = dict(re.findall(r"^#? ?([A-Z0-9_]+)=(.*)$", example, flags=re.MULTILINE))
    used = set(re.findall(r"\$\{([A-Z0-9_]+)", COMPOSE.read_text()))
    assert used == set(settings), f"documented {sorted(settings)}, used {sorted(used)}"
    assert all(settings[name] == "" for name in REQUIRED_SECRETS), "no secret in the example"


def test_arena_services_run_the_processes_of_the_guide() -> None:
    all_services = services()
    arena = {n: s for n, s in all_services.items() if s.get("build")}
    assert set(arena) == {*REFEREES, "worker-1", "worker-2", "beat", "web", "runner-0"}
    for name, service in arena.items():
        assert service["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}, name
        env = environment(service)
        assert env["ARENA_REFEREE_ADDRESS"] == "referee-0:50051,referee-1:50051", name
        assert {"ARENA_DATABASE_URL", "ARENA_REDIS_URL", "ARENA_ADMIN_TOKEN"} <= set(env), name
    published = set()
    for name in REFEREES:
        referee = " ".join(arena[name]["command"])
        assert referee.startswith("arena serve --bind 0.0.0.0"), "it says what it binds"
        assert "--port 50051 --metrics-port 9101" in referee
        assert referee.endswith(f"--name {name}"), "each referee has its own name"
        assert [v.split(":")[1] for v in arena[name]["volumes"]] == ["/var/lib/arena"]
        published |= {port.rsplit(":", 1)[0] for port in arena[name]["ports"]}
        assert arena[name]["stop_grace_period"] == "30s", "time to drain on SIGTERM"
    assert len(published) == 2, "each referee is published on a host port of its own"
    volumes = [arena[name]["volumes"][0].split(":")[0] for name in REFEREES]
    assert len(set(volumes)) == 2, "no two referees share a data volume"
    for worker in ("worker-1", "worker-2"):
        command = " ".join(arena[worker]["command"])
        assert command.startswith("celery -A workers.app worker"), worker
        env = environment(arena[worker])
        assert env["ARENA_WORKER_METRICS_PORT"] == "9102"
        tmpfs = [mount.split(":")[0] for mount in arena[worker]["tmpfs"]]
        assert env["PROMETHEUS_MULTIPROC_DIR"] in tmpfs, "multiprocess files start empty"
    assert " ".join(arena["beat"]["command"]).startswith("celery -A workers.app beat")
    assert environment(arena["beat"])["ARENA_BEAT_METRICS_PORT"] == "9103"
    web = " ".join(arena["web"]["command"])
    assert web.startswith("arena web --bind 0.0.0.0") and "--port 8080 --metrics-port 9104" in web
    assert all(environment(s)["ARENA_BIND"] == "0.0.0.0" for s in arena.values()), "metrics"
    runner = " ".join(arena["runner-0"]["command"])
    assert runner.startswith("arena runner --bind 0.0.0.0 --address referee-0:50051")
    assert "--metrics-port 9109" in runner and runner.endswith("--name runner-0")
    assert "seccomp=unconfined" in arena["runner-0"]["security_opt"], "bwrap's user namespaces"
    assert arena["runner-0"]["pids_limit"] > 0, "a cap on every bot's processes together"


def test_bind_mounts_and_image_sources_exist() -> None:
    for name, service in services().items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), (name, source)
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    copied = re.findall(r"^COPY (?!--from)(.+) \S+$", dockerfile, flags=re.MULTILINE)
    sources = [s for line in copied for s in line.split()]
    assert "deploy/healthcheck.py" in sources
    missing = [s for s in sources if not (REPO / s).exists()]
    assert not missing, f"the Dockerfile copies files that do not exist: {missing}"


def compose_command() -> list[str] | None:
    """`docker compose` if the plugin is there, else `docker-compose` (from Debian if need be)."""
    if shutil.which("docker"):
        probe = subprocess.run(
            ["docker", "compose", "version"], capture_output=True, timeout=30, check=False
        )
        if probe.returncode == 0:
            return ["docker", "compose"]
    if ensure_debian_package("docker-compose", "docker-compose"):
        return ["docker-compose"]
    return None


def test_docker_compose_config_accepts_the_file(tmp_path: Path) -> None:
    command = compose_command()
    if command is None:
        pytest.skip(
            "no compose client: `docker compose` is missing and Debian's `docker-compose` "
            "could not be installed"
        )
    base = {k: v for k, v in os.environ.items() if k not in REQUIRED_SECRETS}
    (tmp_path / "empty.env").write_text("")  # not a developer's deploy/.env
    env_file = ["--env-file", str(tmp_path / "empty.env")]
    args = [*command, *env_file, "-f", str(COMPOSE), "config", "--quiet"]
    missing = subprocess.run(args, env=base, capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0, "compose must refuse to run without its secrets"
    assert "set " in missing.stderr and "PASSWORD" in missing.stderr, missing.stderr
    secrets = {name: f"test-{name.lower()}" for name in REQUIRED_SECRETS}
    done = subprocess.run(args, env={**base, **secrets}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
