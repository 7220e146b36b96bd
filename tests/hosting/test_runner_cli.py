"""`arena runner` mistakes are one line, before anything starts."""

from __future__ import annotations

import pytest

from arena.cli.main import main


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--name", "../escape"], "a runner's name is 1-64 letters"),
        (["--name", "ok", "--cgroup-base", "/sys/fs/cgroup"], "--cgroup-base is a relative"),
        (["--name", "ok", "--cgroup-base", "a/../../b"], "--cgroup-base is a relative"),
    ],
)
def test_a_bad_name_or_cgroup_base_is_one_line(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["runner", "--address", "127.0.0.1:1", "--metrics-port", "-1", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0
    assert len(err) == 1 and says in err[0], err
