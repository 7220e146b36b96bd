"""A referee that exits while the stack waits for it: the stack's error says why, from its log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.ops import stack
from arena.ops.ports import free_port
from arena.ops.stack import StackConfig, referee_processes


def _exited_referee(tmp_path: Path, *, logs_to_files: bool) -> str:
    config = StackConfig(data_dir=tmp_path, port=free_port(), logs_to_files=logs_to_files)
    referee = referee_processes(config)[0]
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "referee.log").write_text(
        "starting\narena: port 50051 (referee gRPC) is in use by another program\n\n"
    )
    process = subprocess.Popen([sys.executable, "-c", "raise SystemExit(5)"])
    process.wait()
    with pytest.raises(ChildProcessError) as raised:
        stack._wait_referee(config, referee, process)
    return str(raised.value)


def test_the_error_ends_with_the_last_line_the_referee_logged(tmp_path: Path) -> None:
    said = _exited_referee(tmp_path, logs_to_files=True)
    assert said.startswith("the referee exited before serving on 127.0.0.1:"), said
    assert said.endswith(": arena: port 50051 (referee gRPC) is in use by another program"), said


def test_without_log_files_the_error_is_the_bare_exit(tmp_path: Path) -> None:
    said = _exited_referee(tmp_path, logs_to_files=False)
    assert said.startswith("the referee exited before serving on 127.0.0.1:"), said
    assert "in use" not in said
