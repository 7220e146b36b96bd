"""The committed generated code matches the .proto files, and the protos follow the house rules."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from arena.protocol.protogen import ROOT, generate, proto_files


def test_generated_code_is_fresh() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = {p.name: p.read_text() for p in generate(Path(tmp))}
    committed = {p.name: p.read_text() for p in (ROOT / "arena" / "v1").glob("*_pb2*.py*")}
    assert set(fresh) == set(committed), "generated files differ: run `make proto`"
    stale = sorted(name for name in fresh if fresh[name] != committed[name])
    assert not stale, f"stale generated code in {stale}: run `make proto`"


def test_every_proto_element_is_commented_and_enums_have_unspecified_zero() -> None:
    problems = []
    for path in proto_files():
        lines = path.read_text().splitlines()
        assert any(line.startswith("package arena.v1;") for line in lines), path.name
        for number, line in enumerate(lines):
            stripped = line.strip()
            element = re.match(
                r"(service|rpc|message|enum)\s+\w+|\w[\w.<>, ]*\s+\w+\s*=\s*\d+;", stripped
            )
            if element and not stripped.startswith(("option", "reserved", "//")):
                previous = lines[number - 1].strip() if number else ""
                if not previous.startswith("//"):
                    problems.append(f"{path.name}:{number + 1} has no comment: {stripped}")
            zero = re.match(r"(\w+)\s*=\s*0;", stripped)
            if zero and _in_enum(lines, number) and not zero.group(1).endswith("_UNSPECIFIED"):
                problems.append(f"{path.name}:{number + 1} enum zero is not *_UNSPECIFIED")
    assert not problems, "\n".join(problems)


def _in_enum(lines: list[str], number: int) -> bool:
    for line in reversed(lines[:number]):
        stripped = line.strip()
        if stripped.startswith("enum "):
            return True
        if stripped.startswith(("message ", "oneof ")):
            return False
    return False
