"""The `arena-sdk` wheel (sdk/python/build_wheel.py): the repository's own SDK files, installing
grpcio and protobuf alone, and playing over the wire from a clean virtual environment of the
oldest and the newest Python this machine has (3.9 and 3.13 where pyenv or Debian provide them;
the running Python otherwise). Needs pip to reach PyPI or its cache for grpcio and protobuf."""

from __future__ import annotations

import ast
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "python-bot" / "my_bot.py"
ALLOWED = {"arena-sdk", "grpcio", "protobuf", "typing-extensions", "pip", "setuptools"}
"""What a clean venv may hold after installing the wheel: grpcio, protobuf and their own
dependencies (grpcio needs typing-extensions), plus the venv's pip and setuptools."""
HEURISTIC = (
    "import os; from arena.sdk import StrategyBot; "
    "StrategyBot('heuristic').run(os.environ['ARENA_ADDRESS'], os.environ['ARENA_BOT_TOKEN'])"
)


def interpreters() -> dict[str, str]:
    """The oldest and newest Python 3.9-3.13 found (pyenv's versions, then PATH), by version."""
    found: dict[str, str] = {}
    for minor in range(9, 14):
        name = f"python3.{minor}"
        pyenv = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.{minor}.*/bin/{name}")))
        path = pyenv[-1] if pyenv else shutil.which(name, path="/usr/local/bin:/usr/bin:/bin")
        if path:
            found[f"3.{minor}"] = path
    if not found:
        found[f"{sys.version_info.major}.{sys.version_info.minor}"] = sys.executable
    first, last = min(found, key=_minor), max(found, key=_minor)
    return {first: found[first], last: found[last]}


def _minor(version: str) -> int:
    return int(version.split(".")[1])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, str(ROOT / "sdk" / "python" / "build_wheel.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


def test_the_wheel_carries_the_repository_files_in_python_3_9_syntax(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if not n.startswith("arena_sdk-")]
        assert "arena/sdk/client.py" in names and "engines/json_value.py" in names
        assert "arena/v1/bot_pb2.py" in names and "arena/v1/bot_pb2.pyi" in names
        assert "arena/sdk/local.py" not in names and "engines/api.py" not in names
        for name in names:
            data = archive.read(name)
            if name.endswith(".py"):
                ast.parse(data, filename=name, feature_version=(3, 9))
            if re.fullmatch(r"arena/v1/\w+_pb2(_grpc)?\.py", name):
                continue  # generated from proto/ at build time by the pinned grpcio-tools
            assert data == (ROOT / name).read_bytes(), f"{name} differs from the repository's"
        metadata = archive.read("arena_sdk-0.1.0.dist-info/METADATA").decode()
    requires = sorted(re.findall(r"^Requires-Dist: ([\w-]+)[^;\n]*$", metadata, re.M))
    assert requires == ["grpcio", "protobuf"]
    assert "Requires-Python: >=3.9" in metadata


@pytest.mark.parametrize("version", sorted(interpreters(), key=_minor))
def test_a_clean_venv_installs_grpc_and_protobuf_only_and_plays(
    wheel: Path, version: str, tmp_path: Path
) -> None:
    python = interpreters()[version]
    env_dir = tmp_path / f"venv{version}"
    subprocess.run([python, "-m", "venv", str(env_dir)], check=True, timeout=120)
    bot_python = env_dir / "bin" / "python"
    started = time.monotonic()
    subprocess.run(
        [str(bot_python), "-m", "pip", "install", "-q", str(wheel)], check=True, timeout=300
    )
    print(f"python {version}: pip install of the wheel took {time.monotonic() - started:.1f}s")
    listed = subprocess.run(
        [str(bot_python), "-m", "pip", "list", "--format", "freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    print(f"python {version}: installed {' '.join(listed)}")
    names = {line.split("==")[0].lower().replace("_", "-") for line in listed}
    assert {"arena-sdk", "grpcio", "protobuf"} <= names <= ALLOWED, names

    # The unchanged example bot, then a reference strategy, from the venv, against a referee.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    runs = [
        ("hart", shlex.join([str(bot_python), str(EXAMPLE)])),
        ("crossing", shlex.join([str(bot_python), "-c", HEURISTIC])),
    ]
    trial = [sys.executable, "-m", "arena.cli.main", "bot", "test", "--matches", "1"]
    for game, command in runs:
        done = subprocess.run(
            [*trial, "--game", game, "--cmd", command, "--opponents", "random"],
            capture_output=True,
            text=True,
            timeout=240,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "1 matches: " in done.stdout and " 0 bad answers" in done.stdout, done.stdout
