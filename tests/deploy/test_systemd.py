"""deploy/systemd: the units for running without containers, checked by systemd-analyze."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.deploy.support import DEPLOY, run

UNITS = DEPLOY / "systemd"
INSTALLED = "/opt/arena/venv/bin/"
# unit file -> (an instance to verify, what it runs, its metrics port)
PROCESSES = {
    "arena-referee@.service": ("arena-referee@0.service", "arena serve", 9101),
    "arena-worker@.service": ("arena-worker@1.service", "celery -A workers.app worker", 9102),
    "arena-beat.service": ("arena-beat.service", "celery -A workers.app beat", 9103),
    "arena-web.service": ("arena-web.service", "arena web", 9104),
    "arena-runner@.service": ("arena-runner@0.service", "arena runner", 9109),
}


def test_units_run_the_arena_processes_with_their_ports() -> None:
    for name, (_, command, port) in PROCESSES.items():
        text = (UNITS / name).read_text()
        start = re.search(r"^ExecStart=(.*)$", text, flags=re.MULTILINE)
        assert start and start.group(1).startswith(INSTALLED + command), name
        assert f"={port}" in text, f"{name} defaults its metrics port to {port}"
        assert "Restart=always" in text and "EnvironmentFile=/etc/arena/arena.env" in text, name
        assert "User=arena" in text and "WantedBy=arena.target" in text, name
        assert "Environment=ARENA_BIND=0.0.0.0" in text, f"{name} says what it binds"
    runner = (UNITS / "arena-runner@.service").read_text()
    assert "TasksMax=" in runner and "MemoryMax=" in runner, "its bots together are capped"
    for name in ("arena-referee@.service", "arena-web.service", "arena-runner@.service"):
        assert "--bind ${ARENA_BIND}" in (UNITS / name).read_text(), name
    worker = (UNITS / "arena-worker@.service").read_text()
    assert "PROMETHEUS_MULTIPROC_DIR=/run/arena-worker-%i" in worker
    assert "RuntimeDirectory=arena-worker-%i" in worker, "multiprocess files start empty"


def test_systemd_analyze_verify(tmp_path: Path) -> None:
    """Units verify cleanly; the installed programs are stood in for by /bin/true."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    fake = tmp_path / "bin"
    fake.mkdir()
    for program in ("arena", "celery"):
        (fake / program).symlink_to("/bin/true")
    for unit in UNITS.iterdir():
        if unit.suffix in {".service", ".target"}:
            text = unit.read_text().replace(INSTALLED, f"{fake}/")
            (tmp_path / unit.name).write_text(text)
    for instance in [*(p[0] for p in PROCESSES.values()), "arena.target"]:
        code, output = run(["systemd-analyze", "verify", "--man=no", f"./{instance}"], cwd=tmp_path)
        assert code == 0 and not output.strip(), f"{instance}:\n{output}"


def test_systemd_analyze_verify_can_fail(tmp_path: Path) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    (tmp_path / "broken.service").write_text("[Service]\nType=bogus\nExecStart=/bin/true\n")
    code, output = run(["systemd-analyze", "verify", "--man=no", "./broken.service"], tmp_path)
    assert code != 0 or output.strip()
