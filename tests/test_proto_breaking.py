"""`buf breaking` (run by `make check`) passes on proto/ against the last release
(tests/fixtures/proto-v1/), and fails on a copy of proto/ with one field's number changed.

Uses the buf that `make breaking` installs into tools/ (the Makefile's BUF_VERSION), or installs
that version into a temporary folder with npm."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tests" / "fixtures" / "proto-v1"

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="no npm on PATH")


@pytest.fixture(scope="module")
def buf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    found = re.search(r"^BUF_VERSION := (\S+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found is not None
    version = found[1]
    made = ROOT / "tools" / f"buf-{version}" / "node_modules" / ".bin" / "buf"
    if made.exists():
        return made
    prefix = tmp_path_factory.mktemp("buf")
    subprocess.run(
        [
            "npm",
            "install",
            "--no-fund",
            "--no-audit",
            "--prefix",
            str(prefix),
            f"@bufbuild/buf@{version}",
        ],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return prefix / "node_modules" / ".bin" / "buf"


def _breaking(buf: Path, proto: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(buf), "breaking", str(proto), "--against", str(BASELINE)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_todays_proto_keeps_the_released_contract(buf: Path) -> None:
    done = _breaking(buf, ROOT / "proto")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_renumbered_field_is_a_breaking_change(buf: Path, tmp_path: Path) -> None:
    broken = tmp_path / "proto"
    shutil.copytree(ROOT / "proto", broken)
    bot = broken / "arena" / "v1" / "bot.proto"
    text = bot.read_text()
    start = text.index("message MatchStart {")
    field = text.index("int64 match_id = 1;", start)
    bot.write_text(text[:field] + "int64 match_id = 99;" + text[field + 19 :])
    done = _breaking(buf, broken)
    assert done.returncode != 0
    assert 'field "1" with name "match_id" on message "MatchStart" was deleted' in done.stdout
