"""Run Arena's services as child processes: embedded Postgres and Redis when no URLs are set,
one or more referees, a Celery worker, Celery beat and a runner of hosted bots (when bwrap is
installed). Used by `arena up` and `arena demo`.

With `referees=N` the referees are named referee-0 .. referee-N-1 and listen on N consecutive
gRPC ports from `port` and N consecutive metrics ports from `referee_metrics_port`, all on the
same database and Redis; the worker gets every address (comma-separated).

Each child runs in its own process group: stopping the stack stops the worker's prefork children.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from arena.ops.bind import connect_host, http_host
from arena.ops.ports import reserve
from arena.ops.probes import last_line, wait_healthy, wait_http
from arena.ops.services import EmbeddedServices
from arena.ops.stack_runners import runner_args, runner_processes
from arena.ops.tls import SERVER_TLS_VARIABLES, ServerTls
from arena.sdk.tls import PLAINTEXT, ClientTls

STOP_GRACE = timedelta(seconds=10)
"""How long a child has to exit after SIGTERM before it is killed."""
WEB_COMMAND = ("-m", "arena.cli.main", "web")


@dataclass
class StackConfig:
    """Where the stack keeps its files and which ports it uses."""

    data_dir: Path
    port: int = 50051
    referee_metrics_port: int = 9101
    worker_metrics_port: int = 9102
    beat_metrics_port: int = 9103
    runner_metrics_port: int = 9109
    """The first runner's (runners start only where bwrap is installed)."""
    runners: int = 1
    """Hosted-bot runner processes (arena.ops.stack_runners)."""
    concurrency: int = 8
    per_decision: timedelta = timedelta(seconds=5)
    """The referee's default per-decision limit."""
    logs_to_files: bool = False
    """Write each child's output to `<data_dir>/logs/<name>.log` instead of this terminal."""
    extra_env: dict[str, str] = field(default_factory=dict)
    web_port: int = 8080
    """The web pages' HTTP port; -1 starts no web server."""
    web_metrics_port: int = 9104
    spectator_delay: timedelta = timedelta(seconds=3)
    """How far behind the web pages show a running match."""
    referees: int = 1
    """Referee processes, sharing the database and Redis."""
    tls: ServerTls | None = None
    """The referees' and the web pages' certificate (their client CA binds the referees only);
    None: plaintext."""
    client_tls: ClientTls = PLAINTEXT
    """How the stack's own clients (workers, health checks, reference bots) reach the
    referees; given to the children as ARENA_TLS* variables."""
    bind: str = "127.0.0.1"
    """The interface every service listens on (`--bind`); this machine only by default."""

    def tls_args(self, *, client_ca: bool) -> list[str]:
        """The --tls-* options of a referee (`client_ca`) or of the web server."""
        tls = self.tls
        if tls is None:
            return []
        args = ["--tls-cert", str(tls.cert), "--tls-key", str(tls.key)]
        if client_ca and tls.client_ca is not None:
            args += ["--tls-client-ca", str(tls.client_ca)]
        return args


@dataclass(frozen=True, slots=True)
class RefereeProcess:
    """One referee of the stack: its name (`arena serve --name`), ports and process label."""

    name: str
    port: int
    metrics_port: int
    label: str
    """The child's name in `Stack.children` and its log file: "referee" when it is alone."""
    host: str = "127.0.0.1"
    """Where clients on this machine reach it (the bound interface, or loopback for all)."""

    @property
    def address(self) -> str:
        """Where bots and clients reach it."""
        return f"{self.host}:{self.port}"


def referee_processes(config: StackConfig) -> list[RefereeProcess]:
    """The referees `config` asks for, on consecutive gRPC ports; their metrics ports follow
    `referee_metrics_port`, skipping the other services' (so that the defaults work for any
    number of referees: 9101, then 9105, 9106, ...)."""
    alone = config.referees == 1
    others = {config.worker_metrics_port, config.beat_metrics_port, config.runner_metrics_port}
    if config.web_port >= 0:
        others |= {config.web_port, config.web_metrics_port}
    metrics_ports = [config.referee_metrics_port]
    while len(metrics_ports) < config.referees:
        candidate = metrics_ports[-1] + 1
        while candidate in others:
            candidate += 1
        metrics_ports.append(candidate)
    return [
        RefereeProcess(
            name=f"referee-{i}",
            port=config.port + i,
            metrics_port=metrics_ports[i],
            label="referee" if alone else f"referee-{i}",
            host=connect_host(config.bind),
        )
        for i in range(config.referees)
    ]


class Stack:
    """The running services; use as a context manager."""

    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.services = EmbeddedServices(config.data_dir)
        self.admin_token = os.environ.get("ARENA_ADMIN_TOKEN") or secrets.token_urlsafe(24)
        self.children: dict[str, subprocess.Popen[bytes]] = {}
        self.referees = referee_processes(config)
        taken = {r.port for r in self.referees} | {r.metrics_port for r in self.referees}
        taken |= {config.worker_metrics_port, config.beat_metrics_port}
        if config.web_port >= 0:
            taken |= {config.web_port, config.web_metrics_port}
        self.runners = runner_processes(config, taken)
        reserve(taken | {r.metrics_port for r in self.runners})

    @property
    def address(self) -> str:
        """The first referee's address: what clients use by default (any referee answers)."""
        return self.referees[0].address

    @property
    def referee_addresses(self) -> str:
        """Every referee's address, comma-separated, as workers take them."""
        return ",".join(r.address for r in self.referees)

    def environ(self) -> dict[str, str]:
        """What a client or child process needs to reach this stack."""
        return {
            **self.services.environ(),
            "ARENA_DATA_DIR": str(self.config.data_dir),
            "ARENA_HOME": str(self.config.data_dir),
            "ARENA_ADMIN_TOKEN": self.admin_token,
            "ARENA_REFEREE_ADDRESS": self.referee_addresses,
            "ARENA_ADDRESS": self.address,
            **self.config.client_tls.environ(),
        }

    def start(self) -> None:
        """Start everything and wait until the referee answers health checks."""
        c = self.config
        c.data_dir.mkdir(parents=True, exist_ok=True)
        # Under root the embedded Postgres runs as an unprivileged user, which must be able to
        # enter the folder (a fresh mkdtemp folder is 0700).
        c.data_dir.chmod(c.data_dir.stat().st_mode | 0o711)
        self.services.start()
        try:
            # The first referee migrates the database alone; the others start together after it.
            first, *others = self.referees
            self._start_referees([first])
            self._start_referees(others)
            self._spawn(
                "worker",
                [
                    "-m",
                    "celery",
                    "-A",
                    "workers.app",
                    "worker",
                    "--loglevel",
                    "INFO",
                    "--concurrency",
                    str(c.concurrency),
                    "--hostname",
                    "worker1@%h",
                    "--without-gossip",
                    "--without-mingle",
                ],
                {"ARENA_WORKER_METRICS_PORT": str(c.worker_metrics_port)},
            )
            self._spawn(
                "beat",
                [
                    "-m",
                    "celery",
                    "-A",
                    "workers.app",
                    "beat",
                    "--loglevel",
                    "INFO",
                    "--schedule",
                    str(c.data_dir / "celerybeat-schedule"),
                ],
                {"ARENA_BEAT_METRICS_PORT": str(c.beat_metrics_port)},
            )
            for runner in self.runners:  # none without bwrap: hosted bots are refused
                self._spawn(runner.label, runner_args(c, runner, self.address))
            if c.web_port >= 0:
                self._spawn("web", [*WEB_COMMAND, *self.web_args()])
                wait_http(self.web_url + "healthz", timeout=timedelta(seconds=60))
        except BaseException:
            self.stop()
            raise

    def _start_referees(self, referees: Sequence[RefereeProcess]) -> None:
        """Spawn `referees` and wait until each answers health checks."""
        for referee in referees:
            self._spawn(
                referee.label,
                [
                    "-m",
                    "arena.cli.main",
                    "serve",
                    "--port",
                    str(referee.port),
                    "--bind",
                    self.config.bind,
                    "--metrics-port",
                    str(referee.metrics_port),
                    "--name",
                    referee.name,
                    # The admin token reaches it as ARENA_ADMIN_TOKEN (see `environ`): a command
                    # line is readable by every user of the machine (`ps`).
                    "--per-decision",
                    f"{self.config.per_decision.total_seconds():g}",
                    *self.config.tls_args(client_ca=True),
                ],
            )
        for referee in referees:
            _wait_referee(self.config, referee, self.children[referee.label])

    @property
    def web_url(self) -> str:
        """Where the web pages are (with a trailing slash)."""
        scheme = "http" if self.config.tls is None else "https"
        return f"{scheme}://{connect_host(self.config.bind)}:{self.config.web_port}/"

    def web_args(self) -> list[str]:
        """The `arena web` options of this stack."""
        c = self.config
        return [
            "--host",
            http_host(c.bind),
            "--port",
            str(c.web_port),
            "--metrics-port",
            str(c.web_metrics_port),
            "--spectator-delay",
            f"{c.spectator_delay.total_seconds():g}",
            *self.config.tls_args(client_ca=False),
        ]

    def _spawn(self, name: str, args: Sequence[str], env: dict[str, str] | None = None) -> None:
        child_env = {**os.environ, **self.environ(), **self.config.extra_env, **(env or {})}
        child_env["ARENA_BIND"] = self.config.bind  # the Celery processes' metrics ports
        child_env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        # A child serves TLS by `tls_args` only, never by a variable left in the shell: `arena
        # demo`, which talks plaintext to its stack, would otherwise start TLS referees.
        for variable in SERVER_TLS_VARIABLES:
            child_env.pop(variable, None)
        if name == "worker":  # prefork children merge their samples through this folder
            metrics_dir = self.config.data_dir / "metrics" / name
            metrics_dir.mkdir(parents=True, exist_ok=True)
            child_env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)
        with contextlib.ExitStack() as files:
            output = None
            if self.config.logs_to_files:
                logs = self.config.data_dir / "logs"
                logs.mkdir(parents=True, exist_ok=True)
                output = files.enter_context((logs / f"{name}.log").open("ab"))
            self.children[name] = subprocess.Popen(
                [sys.executable, *args],
                env=child_env,
                stdout=output,
                stderr=output,
                start_new_session=True,
                # Not the user's folder: `python -m` puts the working folder first on sys.path,
                # so a stray module there (a `six.py` in /tmp) would shadow a real one.
                cwd=self.config.data_dir,
            )

    def check(self) -> list[str]:
        """Names of children that have exited."""
        return [n for n, p in self.children.items() if p.poll() is not None]

    def stop(self) -> None:
        """Stop every child (and its process group), then the embedded servers."""
        for process in self.children.values():
            signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE.total_seconds()
        for process in self.children.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            signal_group(process, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        self.children.clear()
        self.services.stop()

    def __enter__(self) -> Stack:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _wait_referee(
    config: StackConfig, referee: RefereeProcess, process: subprocess.Popen[bytes]
) -> None:
    """Wait until `referee` answers health checks; if it exits first, say why from its log."""
    try:
        wait_healthy(
            referee.address,
            timeout=timedelta(seconds=60),
            alive=_running(process),
            tls=config.client_tls,
        )
    except ChildProcessError as exc:
        log = config.data_dir / "logs" / f"{referee.label}.log"
        said = last_line(log) if config.logs_to_files else ""
        raise ChildProcessError(f"{exc}: {said}" if said else str(exc)) from None


def _running(process: subprocess.Popen[bytes]) -> Callable[[], bool]:
    """Whether `process` still runs, as a function to ask again."""
    return lambda: process.poll() is None


def signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Send `sig` to `process`'s whole process group (gone already is fine)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
