"""Build the `arena-sdk` wheel (run by `make sdk-python`): stage, generate stubs, build.

The wheel holds the repository's own files, copied at build time, never kept twice:

    arena/__init__.py, arena/sdk/ (less local.py), arena/sdk/bots/   the SDK, reference strategies
    engines/__init__.py, json_value.py, rng.py                       `Json`, `Rng`, `HashRng`
    arena/v1/                                                        stubs of proto/arena/v1/

The stubs' Python code is generated here from proto/ by a pinned grpcio-tools (TOOLS, installed
once into build/sdk-tools/): its gencode (protobuf 6.31.1, grpcio 1.75.1) loads on the newest
protobuf and grpcio a Python 3.9 can install, where the repository's own arena/v1/, made by the
dev environment's newer grpcio-tools, does not. The typing stubs (.pyi) are the committed ones.

    python sdk/python/build_wheel.py [OUT_DIR]        (default: dist/)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "sdk" / "python"
TOOLS = "grpcio-tools==1.75.1"
TOOLS_DIR = ROOT / "build" / "sdk-tools" / TOOLS.replace("==", "-")

SOURCES = {
    "arena": ["__init__.py", "py.typed"],
    "arena/sdk": [
        "__init__.py",
        "addresses.py",
        "client.py",
        "openspiel_view.py",
        "stream.py",
        "tls.py",
        "turns.py",
    ],
    "arena/sdk/bots": sorted(p.name for p in (ROOT / "arena/sdk/bots").glob("*.py")),
    "arena/v1": ["__init__.py", *sorted(p.name for p in (ROOT / "arena/v1").glob("*.pyi"))],
    "engines": ["__init__.py", "json_value.py", "rng.py", "py.typed"],
}
"""The repository files the wheel carries, by package folder. arena/sdk/local.py is left out: it
plays matches in process through the engines, which only the full install has."""


def stage(folder: Path) -> None:
    """Copy the SDK's sources, pyproject and README into `folder`, and generate the stubs."""
    for package, names in SOURCES.items():
        (folder / package).mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copy2(ROOT / package / name, folder / package / name)
    shutil.copy2(HERE / "pyproject.toml", folder / "pyproject.toml")
    shutil.copy2(HERE / "README.md", folder / "README.md")
    generate_stubs(folder)


def generate_stubs(folder: Path) -> None:
    """Run the pinned protoc on proto/arena/v1/*.proto into `folder`/arena/v1."""
    if not (TOOLS_DIR / "grpc_tools").is_dir():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "-q", "--target", str(TOOLS_DIR), TOOLS],
            check=True,
        )
    protos = sorted(
        str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto/arena/v1").glob("*.proto")
    )
    include = TOOLS_DIR / "grpc_tools" / "_proto"
    # -S: only the pinned tools on the path, not this environment's newer grpcio and protobuf.
    subprocess.run(
        [
            sys.executable,
            "-S",
            "-m",
            "grpc_tools.protoc",
            f"-I{ROOT / 'proto'}",
            f"-I{include}",
            f"--python_out={folder}",
            f"--grpc_python_out={folder}",
            *protos,
        ],
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(TOOLS_DIR), "PATH": "/usr/bin:/bin"},
    )


def build(out: Path) -> Path:
    """Build the wheel into `out`; return its path."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arena-sdk-") as tmp:
        folder = Path(tmp) / "arena-sdk"
        stage(folder)
        before = set(out.glob("arena_sdk-*.whl"))
        for old in before:
            old.unlink()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "wheel",
                "-q",
                "--no-deps",
                "--no-build-isolation",
                "-w",
                str(out),
                str(folder),
            ],
            check=True,
        )
    (wheel,) = out.glob("arena_sdk-*.whl")
    return wheel


def main() -> int:
    """Build into the folder named on the command line (default dist/) and print the wheel."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "dist"
    print(build(out.resolve()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
