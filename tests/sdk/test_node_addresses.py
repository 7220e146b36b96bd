"""The Node example reads an address list the way the SDK does: the same lists parse to the same
addresses, the same mistakes are refused, and it moves on to the next referee after a failure.
Runs sdk/node/src/addresses.js (no npm packages needed) with the `node` on PATH."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from arena.sdk import AddressError, parse_addresses

NODE = shutil.which("node")
ADDRESSES_JS = Path(__file__).resolve().parents[2] / "sdk" / "node" / "src" / "addresses.js"
CASES = [
    "localhost:50051",
    " ref-a:50051 , ref-b:50051 ",
    "[::1]:50051,127.0.0.1:50051",
    "dns:///referees.internal:50051",
    "ipv4:10.0.0.1:50051,10.0.0.2:50051",
    "a:1,,b:2",
    "a:1,",
    "a:1,b:http",
    "a:1,b:99999",
    "a:1,b",
    "",
]
SCRIPT = """
const { parseAddresses, Rotation } = require(process.argv[1]);
const cases = JSON.parse(process.argv[2]);
const parsed = cases.map((c) => { try { return parseAddresses(c); } catch (e) { return null; } });
const r = new Rotation(['a:1', 'b:2']);
const walk = [r.current];
for (let i = 0; i < 3; i++) { r.failed(); walk.push(r.current); }
console.log(JSON.stringify({ parsed, walk }));
"""

pytestmark = pytest.mark.skipif(NODE is None, reason="no node on PATH")


def _python(case: str) -> list[str] | None:
    try:
        return parse_addresses(case)
    except AddressError:
        return None


def test_node_and_python_read_address_lists_alike() -> None:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", SCRIPT, str(ADDRESSES_JS), json.dumps(CASES)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    answer = json.loads(done.stdout)
    assert answer["parsed"] == [_python(c) for c in CASES]
    assert answer["parsed"][1] == ["ref-a:50051", "ref-b:50051"]
    assert answer["parsed"][5] is None
    assert answer["walk"] == ["a:1", "b:2", "a:1", "b:2"]
