"""Generate the Python code of `proto/` into `arena/v1/` (run by `make proto`).

The generated modules are committed, so users need no protoc. `tests/test_proto.py` regenerates
them into a temporary folder and fails when the committed ones are stale.
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROTO_DIR = ROOT / "proto"
OUT_PACKAGE = ("arena", "v1")


def proto_files() -> list[Path]:
    """Every .proto file of the wire contract."""
    return sorted((PROTO_DIR / Path(*OUT_PACKAGE)).glob("*.proto"))


def generate(out_dir: Path) -> list[Path]:
    """Run protoc (grpcio-tools, with mypy-protobuf stubs) into `out_dir`; return the files."""
    # A dev dependency: only `make proto` and the test need it. It ships no type hints.
    from grpc_tools import protoc  # type: ignore[import-untyped]

    include = Path(protoc.__file__).parent / "_proto"
    scripts = Path(sysconfig.get_path("scripts"))
    mypy_plugin = scripts / "protoc-gen-mypy"
    mypy_grpc_plugin = scripts / "protoc-gen-mypy_grpc"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_DIR}",
        f"-I{include}",
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--plugin=protoc-gen-mypy={mypy_plugin}",
        f"--plugin=protoc-gen-mypy_grpc={mypy_grpc_plugin}",
        f"--mypy_out={out_dir}",
        f"--mypy_grpc_out={out_dir}",
        *[str(p.relative_to(PROTO_DIR)) for p in proto_files()],
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed; see its messages above")
    return sorted((out_dir / Path(*OUT_PACKAGE)).glob("*_pb2*.py*"))


def main() -> int:
    """Regenerate `arena/v1/` in place."""
    target = ROOT / Path(*OUT_PACKAGE)
    with tempfile.TemporaryDirectory() as tmp:
        files = generate(Path(tmp))
        for old in target.glob("*_pb2*.py*"):
            old.unlink()
        for path in files:
            shutil.copy(path, target / path.name)
            print(f"wrote {target.relative_to(ROOT) / path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
