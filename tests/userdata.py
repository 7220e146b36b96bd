"""The user's own arena folders, watched so that a test run never writes there.

`arena up` keeps its database, Redis, logs and credentials in the user's data directory
(`arena.ops.home.data_dir`). A test that forgets to name a folder of its own would start servers
there and leave files behind; the session guard in `tests/conftest.py` lists these folders
before and after the run and fails the run on anything new.
"""

from __future__ import annotations

import os
from pathlib import Path

from arena.ops.home import ROOT_DATA_DIR


def user_data_dirs() -> list[Path]:
    """Every folder an `arena` command may pick as the user's data directory."""
    candidates = [Path.home() / ".local/share/arena", Path(ROOT_DATA_DIR)]
    xdg = os.environ.get("XDG_DATA_HOME")
    if xdg:
        candidates.append(Path(xdg) / "arena")
    return sorted({path.expanduser().resolve() for path in candidates})


def listing(folders: list[Path]) -> set[Path]:
    """Every path under `folders`, the folders themselves included when they exist."""
    found: set[Path] = set()
    for folder in folders:
        if folder.exists():
            found.add(folder)
            found.update(folder.rglob("*"))
    return found


def new_paths(before: set[Path], after: set[Path]) -> list[str]:
    """What appeared between two listings, as sorted strings (at most 20, then a count)."""
    appeared = sorted(str(path) for path in after - before)
    if len(appeared) > 20:
        return [*appeared[:20], f"... and {len(appeared) - 20} more"]
    return appeared
