"""The data directory and the running-stack record other commands use to find `arena up`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.ops.home import StackInfo, data_dir, default_address


def _info(pid: int) -> StackInfo:
    return StackInfo(
        pid=pid,
        address="127.0.0.1:6001",
        referee_metrics_port=1,
        worker_metrics_port=2,
        beat_metrics_port=3,
        logs="/x/logs",
        database_url="postgresql://x",
        redis_url="redis://x",
    )


def test_the_data_directory_does_not_depend_on_the_current_folder(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    per_user = tmp_path.resolve() / ".local/share/arena"
    assert data_dir(env) == (Path("/var/lib/arena") if os.geteuid() == 0 else per_user)
    assert data_dir({"XDG_DATA_HOME": str(tmp_path / "x")}) == tmp_path.resolve() / "x/arena"
    assert data_dir({**env, "ARENA_HOME": str(tmp_path / "h")}) == tmp_path.resolve() / "h"
    both = {**env, "ARENA_HOME": str(tmp_path / "h"), "ARENA_DATA_DIR": str(tmp_path / "d")}
    assert data_dir(both) == tmp_path.resolve() / "d"


def test_a_running_stack_is_found_and_a_dead_one_is_not(tmp_path: Path) -> None:
    env = {"ARENA_HOME": str(tmp_path)}
    assert StackInfo.read(tmp_path) is None
    assert default_address(env) == "localhost:50051"
    _info(os.getpid()).write(tmp_path)
    assert StackInfo.read(tmp_path) == _info(os.getpid())
    assert default_address(env) == "127.0.0.1:6001"
    assert default_address({**env, "ARENA_ADDRESS": "elsewhere:1"}) == "elsewhere:1"
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    _info(int(gone.stdout)).write(tmp_path)  # that process has exited
    assert StackInfo.read(tmp_path) is None
    assert default_address(env) == "localhost:50051"


def test_only_the_owner_clears_the_record(tmp_path: Path) -> None:
    _info(os.getpid()).write(tmp_path)
    StackInfo.clear(tmp_path, os.getpid() + 1)
    assert StackInfo.path(tmp_path).exists()
    StackInfo.clear(tmp_path, os.getpid())
    assert not StackInfo.path(tmp_path).exists()
