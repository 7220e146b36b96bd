"""Hostile bots in the sandbox: each is contained, and its ending is named for the owner's log."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.hosting.limits import ExitCause
from tests.hosting.conftest import Run


def test_secrets_environment_and_other_folders_are_out_of_sight(
    run_hostile: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "arena-home"
    other_bot = tmp_path / "other-bot"
    for folder in (home, other_bot):
        folder.mkdir()
        (folder / "secret.txt").write_text("do not read")
    monkeypatch.setenv("ARENA_RUNNER_SECRET", "hunter2")
    ending, output = run_hostile(
        "reads_secrets", str(home), str(other_bot), "/root/.bash_history", "/var/lib"
    )
    assert ending.cause is ExitCause.EXITED and ending.status == 0, output
    assert "LEAK" not in output
    assert "hunter2" not in output and "do not read" not in output
    assert "ENV {'ARENA_ADDRESS': 'unix:/run/arena/referee.sock'" in output
    assert "'ARENA_BOT_TOKEN': 'token-of-this-bot'" in output


def test_no_network_but_the_socket(run_hostile: Run) -> None:
    ending, output = run_hostile("connects", "50051")
    assert ending.cause is ExitCause.EXITED, output
    assert "LEAK" not in output
    assert output.count("refused") == 3


def test_own_files_and_runtime_are_read_only(run_hostile: Run) -> None:
    _, output = run_hostile("writes_own_files")
    assert "LEAK" not in output and output.count("refused") == 3, output


def test_fork_bomb_is_stopped_at_the_process_limit(run_hostile: Run) -> None:
    ending, output = run_hostile("fork_bomb")
    assert ending.cause is ExitCause.PROCESSES, (ending, output)
    assert "process limit" in ending.describe()


def test_allocating_10_gb_is_killed_for_memory(run_hostile: Run) -> None:
    ending, output = run_hostile("allocates")
    assert ending.cause is ExitCause.MEMORY, (ending, output)
    assert "LEAK" not in output


def test_tmp_is_capped(run_hostile: Run) -> None:
    ending, output = run_hostile("fills_tmp")
    assert ending.cause is ExitCause.EXITED, output
    assert "refused after" in output and "LEAK" not in output
    written = int(output.split("refused after")[1].split()[0])
    assert written <= 4 * 1024 * 1024


def test_a_stdout_flood_is_stopped_and_only_a_tail_kept(run_hostile: Run) -> None:
    ending, output = run_hostile("floods_stdout")
    assert ending.cause is ExitCause.OUTPUT, ending
    assert "LEAK" not in output
    assert "earlier bytes dropped" in output
    assert len(output) < 4096 + 100


def test_exit_and_segfault_are_named(run_hostile: Run) -> None:
    ending, _ = run_hostile("exits")
    assert (ending.cause, ending.status) == (ExitCause.EXITED, 3)
    ending, _ = run_hostile("segfaults")
    assert ending.cause is ExitCause.CRASHED
    assert ending.describe() == "crashed: killed by SIGSEGV"


def test_a_busy_loop_runs_under_the_cpu_quota_until_stopped(run_hostile: Run) -> None:
    ending, _ = run_hostile("busy", stop_after=1.0)
    assert ending.cause is ExitCause.STOPPED
    assert ending.describe() == "stopped by the runner"
