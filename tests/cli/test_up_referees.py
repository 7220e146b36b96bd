"""`arena up --referees N`: N referees on consecutive ports, refused in one line when N < 1 or
when the ports run into each other, and listed when the stack is up.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from arena.cli.errors import CliError
from arena.cli.up_ports import check_port_plan, planned_ports
from arena.ops.home import StackInfo
from arena.ops.ports import free_port
from arena.ops.probes import wait_healthy
from arena.ops.stack import Stack, StackConfig, referee_processes
from arena.ops.stack_runners import runner_processes
from arena.ops.tls import ServerTls
from arena.sdk.tls import ClientTls


def test_referees_are_named_and_take_consecutive_ports(tmp_path: Path) -> None:
    config = StackConfig(data_dir=tmp_path, port=6000, referee_metrics_port=7000, referees=3)
    referees = referee_processes(config)
    assert [r.name for r in referees] == ["referee-0", "referee-1", "referee-2"]
    assert [r.port for r in referees] == [6000, 6001, 6002]
    assert [r.metrics_port for r in referees] == [7000, 7001, 7002]
    assert [r.label for r in referees] == ["referee-0", "referee-1", "referee-2"]
    assert [r.label for r in referee_processes(StackConfig(data_dir=tmp_path))] == ["referee"]
    ports = [port for _, _, port in planned_ports(config)]
    runner = 1 if shutil.which("bwrap") else 0  # the stack starts a runner only with bwrap
    assert len(ports) == len(set(ports)) == 6 + 4 + runner
    check_port_plan(config)  # no collision: nothing raised


def test_the_default_ports_fit_any_number_of_referees(tmp_path: Path) -> None:
    # Referee metrics ports skip the worker's, beat's and the web's: 9101, then 9105, 9106.
    config = StackConfig(data_dir=tmp_path, referees=3)
    assert [r.metrics_port for r in referee_processes(config)] == [9101, 9105, 9106]
    check_port_plan(config)


def test_a_referee_run_into_another_port_is_refused_with_a_free_start(tmp_path: Path) -> None:
    # Referee gRPC ports are consecutive: from 9100, referee-1's would be referee-0's metrics.
    config = StackConfig(data_dir=tmp_path, referees=2, port=9100)
    with pytest.raises(CliError) as caught:
        check_port_plan(config)
    line = caught.value.line()
    assert "\n" not in line
    assert line.startswith("arena: port 9101 would be both referee-0's metrics port and ")
    assert "pass --" in line


def test_a_referee_port_above_the_range_is_refused(tmp_path: Path) -> None:
    config = StackConfig(data_dir=tmp_path, port=65535, referees=2, referee_metrics_port=9111)
    with pytest.raises(CliError, match="referee-1's gRPC port would be 65536, above 65535"):
        check_port_plan(config)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--referees", "0"],
            "arena: argument --referees: 0 is not allowed: it must be more than 0",
        ),
        (
            ["--referees", "2", "--port", "9100"],
            "arena: port 9101 would be both referee-0's metrics port",
        ),
    ],
)
def test_the_command_refuses_in_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    env = {**os.environ, "ARENA_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "up", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(expected), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "home").exists(), "nothing is started or created"


@pytest.mark.integration
def test_up_with_two_referees_lists_and_runs_both(tmp_path: Path, fresh_database_url: str) -> None:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env.update(ARENA_HOME=str(home), ARENA_DATABASE_URL=fresh_database_url)
    ports = {"grpc": free_port(), "metrics": free_port()}
    for name in ports:  # two consecutive free ports each
        while not _free(ports[name] + 1):
            ports[name] = free_port()
    args = [
        *("--referees", "2", "--port", str(ports["grpc"])),
        *("--referee-metrics-port", str(ports["metrics"])),
        *("--worker-metrics-port", str(free_port()), "--beat-metrics-port", str(free_port())),
        *("--runner-metrics-port", str(free_port())),
        *("--web-port", "-1", "--concurrency", "1"),
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "up", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("register a bot"):
                break
        text = "".join(lines)
        for i in range(2):
            address = f"127.0.0.1:{ports['grpc'] + i}"
            metrics = f"http://127.0.0.1:{ports['metrics'] + i}/metrics"
            assert f"  referee-{i}   {address} (gRPC; metrics {metrics})" in text, text
            wait_healthy(address, timeout=timedelta(seconds=10))
        assert "referee-0.log, referee-1.log, worker.log" in text
        info = StackInfo.read(home)
        assert info is not None
        assert info.referee_addresses == [f"127.0.0.1:{ports['grpc'] + i}" for i in range(2)]
        assert info.address == info.referee_addresses[0]
        killed = _child_pid(home / "logs" / "referee-1.log", process.pid)
        os.killpg(killed, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{killed}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)  # `arena up` reaps it, then says so in the same pass
        assert process.poll() is None, "one referee exiting does not stop the stack"
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "referee-1 exited; the other referees take over its matches" in err, err
    assert "Traceback" not in err


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _child_pid(log: Path, parent: int) -> int:
    """The pid of the `arena serve` child of `parent` whose output goes to `log`."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            target = os.readlink(entry / "fd" / "1")
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent and target == str(log):
            return int(entry.name)
    raise AssertionError(f"no child of {parent} writes {log}")


def test_a_tls_stack_gives_its_referees_the_files_and_its_clients_the_ca(tmp_path: Path) -> None:
    server = ServerTls(tmp_path / "s.pem", tmp_path / "s.key", tmp_path / "clients.pem")
    client = ClientTls(enabled=True, ca=tmp_path / "ca.pem")
    stack = Stack(StackConfig(data_dir=tmp_path, tls=server, client_tls=client))
    files = ["--tls-cert", str(tmp_path / "s.pem"), "--tls-key", str(tmp_path / "s.key")]
    assert stack.config.tls_args(client_ca=True) == [
        *files,
        "--tls-client-ca",
        str(tmp_path / "clients.pem"),
    ]
    assert (
        stack.config.tls_args(client_ca=False) == files
    )  # the web asks browsers for no certificate
    assert stack.web_url.startswith("https://")
    environ = stack.environ()
    assert (environ["ARENA_TLS"], environ["ARENA_TLS_CA"]) == ("1", str(tmp_path / "ca.pem"))
    plain = Stack(StackConfig(data_dir=tmp_path))
    assert plain.config.tls_args(client_ca=True) == []
    assert plain.environ()["ARENA_TLS"] == "0"  # a shell's ARENA_TLS=1 does not reach the children


def test_runners_are_named_and_their_metrics_ports_skip_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.ops.stack_runners.shutil.which", lambda name: f"/usr/bin/{name}")
    config = StackConfig(data_dir=tmp_path, runners=3, runner_metrics_port=9103, web_port=-1)
    runners = runner_processes(config, {9103, 9104, 9105})
    assert [(r.name, r.label) for r in runners] == [
        ("runner-0", "runner-0"),
        ("runner-1", "runner-1"),
        ("runner-2", "runner-2"),
    ]
    assert [r.metrics_port for r in runners] == [9103, 9106, 9107]
    alone = runner_processes(StackConfig(data_dir=tmp_path), set())
    assert [(r.name, r.label, r.metrics_port) for r in alone] == [("runner-0", "runner", 9109)]
    two = StackConfig(data_dir=tmp_path, runners=2)
    assert [p for what, _, p in planned_ports(two) if "runner" in what] == [9109, 9110]
    check_port_plan(two)
    with pytest.raises(CliError) as caught:  # runner-0's metrics port is beat's
        check_port_plan(config)
    line = caught.value.line()
    assert line.startswith("arena: port 9103 would be both beat's metrics port and runner-0's")
    assert "pass --runner-metrics-port 9104 (3 ports from it)" in line, line
    monkeypatch.setattr("arena.ops.stack_runners.shutil.which", lambda name: None)
    assert runner_processes(config, set()) == [], "no runner without bwrap"
