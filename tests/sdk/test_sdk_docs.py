"""`make docs`'s Python half: pdoc writes the SDK's API reference with no broken link, and the link
checker (sdk/check_links.py) does report a missing page or anchor. The Node half (TypeDoc) is
checked in test_node_package.py, where the package's npm dependencies are installed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "sdk"))
from check_links import broken_links  # noqa: E402  (sdk/ is a folder of scripts, not a package)


def sdk_modules() -> list[str]:
    """The modules `make docs` documents (the Makefile's SDK_MODULES)."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    found = re.search(r"^SDK_MODULES := (.+)$", text, re.M)
    assert found is not None
    return found[1].split()


@pytest.mark.integration
def test_pdoc_writes_the_python_reference_without_broken_links(tmp_path: Path) -> None:
    modules = sdk_modules()
    assert "arena.sdk.client" in modules
    subprocess.run(
        [sys.executable, "-m", "pdoc", "-o", str(tmp_path), *modules], check=True, timeout=300
    )
    assert (tmp_path / "arena" / "sdk" / "client.html").is_file()
    assert "def decide" in (tmp_path / "arena" / "sdk" / "client.html").read_text()
    assert broken_links(tmp_path) == []


def test_the_checker_reports_a_missing_page_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(
        '<a id="top" href="b.html#here">b</a> <a href="gone.html">x</a> <a href="#nowhere">y</a>'
        ' <a href="https://example.org/">z</a> <a href="b.html">b</a>'
    )
    (tmp_path / "b.html").write_text('<h1 id="elsewhere">b</h1>')
    assert broken_links(tmp_path) == [
        "a.html: b.html#here: no anchor #here",
        "a.html: gone.html: no such file",
        "a.html: #nowhere: no anchor #nowhere",
    ]
