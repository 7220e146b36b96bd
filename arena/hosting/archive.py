"""A hosted bot's folder as a deterministic archive (gzip tar), and its safe unpacking.

The same folder always packs to the same bytes (sorted names, zero times and owners, modes
reduced to 644/755), so an upload's SHA-256 names its content. Packing and unpacking refuse
what a bot's folder never needs: links that leave the folder, devices, fifos, absolute or `..`
names, and more than the stated sizes. One link out is left out instead of refused: the Node
SDK that `npm install` links into the Node example (PROVIDED), which every runner provides."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MIB = 1024 * 1024
MAX_ARCHIVE_BYTES = 8 * MIB
"""The largest archive (compressed) an upload may send."""
MAX_UNPACKED_BYTES = 64 * MIB
"""The largest a bot's folder may be, unpacked (checked while packing and unpacking)."""
PART_BYTES = 48 * 1024
"""The largest piece of an archive one UploadArchivePart carries (a referee takes messages of
at most 64 KiB)."""
MAX_MEMBERS = 10_000
"""The most files, folders and links a bot's folder may hold."""
SKIPPED = frozenset({".git", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache"})
"""Folders left out when packing (caches and version control)."""
PROVIDED = frozenset({"node_modules/arena-bot"})
"""Links left out when packing if they lead outside the folder: the examples' `file:`
dependency on sdk/node; a runner gives Node bots its own `arena-bot` (hosting.runtime)."""


class ArchiveError(ValueError):
    """A folder that cannot be packed, or an archive that will not be unpacked; says why."""


@dataclass(frozen=True, slots=True)
class Packed:
    """A packed folder: the archive, its SHA-256 and its unpacked size."""

    content: bytes
    sha256: bytes
    unpacked_bytes: int


def pack(folder: Path) -> Packed:
    """The deterministic archive of `folder`; ArchiveError for what it may not hold."""
    root = folder.resolve()
    if not root.is_dir():
        raise ArchiveError(f"{folder} is not a folder")
    buffer = io.BytesIO()
    total = 0
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in _walk(root):
            if _is_provided(root, path):
                continue
            info = _member(root, path)
            total += info.size
            if total > MAX_UNPACKED_BYTES:
                raise ArchiveError(f"{folder} holds more than {MAX_UNPACKED_BYTES // MIB} MiB")
            if info.isreg():
                with path.open("rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    content = buffer.getvalue()
    if len(content) > MAX_ARCHIVE_BYTES:
        raise ArchiveError(
            f"{folder} packs to {len(content)} bytes, over {MAX_ARCHIVE_BYTES // MIB} MiB"
        )
    return Packed(content, hashlib.sha256(content).digest(), total)


def check(content: bytes) -> int:
    """The unpacked size of an archive; ArchiveError when it may not be unpacked."""
    return _unpack(content, None)


def unpack(content: bytes, destination: Path) -> int:
    """Unpack a checked archive into the empty folder `destination`; its unpacked size."""
    return _unpack(content, destination)


def _walk(root: Path) -> list[Path]:
    """Every path under `root` in sorted order, SKIPPED folders left out."""
    found: list[Path] = []
    for current, folders, files in os.walk(root, followlinks=False):
        folders[:] = sorted(name for name in folders if name not in SKIPPED)
        base = Path(current)
        found += [base / name for name in folders]
        found += [base / name for name in sorted(files)]
    return sorted(found, key=lambda path: path.relative_to(root).as_posix())


def _is_provided(root: Path, path: Path) -> bool:
    """Whether `path` is a PROVIDED link leading outside `root` (left out, not refused)."""
    if path.relative_to(root).as_posix() not in PROVIDED or not path.is_symlink():
        return False
    return not path.resolve().is_relative_to(root)


def _member(root: Path, path: Path) -> tarfile.TarInfo:
    """The normalised tar header of `path`; ArchiveError for a link out, a device or a fifo."""
    name = path.relative_to(root).as_posix()
    mode = path.lstat().st_mode
    info = tarfile.TarInfo(name)
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    if stat.S_ISLNK(mode):
        target = os.readlink(path)
        resolved = (path.parent / target).resolve()
        if os.path.isabs(target) or not resolved.is_relative_to(root):
            raise ArchiveError(f"{name} links outside the folder ({target}); copy the file in")
        info.type, info.linkname, info.mode = tarfile.SYMTYPE, target, 0o777
    elif stat.S_ISDIR(mode):
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    elif stat.S_ISREG(mode):
        info.size = path.stat().st_size
        info.mode = 0o755 if mode & stat.S_IXUSR else 0o644
    else:
        raise ArchiveError(f"{name} is not a file, folder or link (a device or fifo?)")
    return info


def _unpack(content: bytes, destination: Path | None) -> int:
    """Check every member (and write it under `destination` when given); the unpacked size."""
    if len(content) > MAX_ARCHIVE_BYTES:
        raise ArchiveError(f"the archive is over {MAX_ARCHIVE_BYTES // MIB} MiB")
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(content), mode="r:gz") as tar:
            for count, info in enumerate(tar, start=1):
                if count > MAX_MEMBERS:
                    raise ArchiveError(f"the archive holds more than {MAX_MEMBERS} entries")
                _check_member(info)
                total += info.size
                if total > MAX_UNPACKED_BYTES:
                    raise ArchiveError(
                        f"the archive unpacks to over {MAX_UNPACKED_BYTES // MIB} MiB"
                    )
                if destination is not None:
                    tar.extract(info, destination, filter="data")
    except (tarfile.TarError, OSError, EOFError, gzip.BadGzipFile) as exc:
        raise ArchiveError(f"the archive does not unpack: {exc}") from None
    return total


def _check_member(info: tarfile.TarInfo) -> None:
    """Refuse absolute or `..` names, links leaving the archive, devices and fifos."""
    name = PurePosixPath(info.name)
    if name.is_absolute() or ".." in name.parts or not info.name:
        raise ArchiveError(f"the archive names a path outside it: {info.name!r}")
    if info.issym():
        target = PurePosixPath(info.linkname)
        depth = len(name.parts) - 1
        if target.is_absolute() or target.parts.count("..") > depth:
            raise ArchiveError(f"{info.name} links outside the archive ({info.linkname})")
    elif not (info.isreg() or info.isdir()):
        raise ArchiveError(f"{info.name} is not a file, folder or link")
