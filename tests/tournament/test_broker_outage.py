"""A Celery worker survives Redis outages while it holds an unacknowledged task (issue 26)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from redis import Redis

from arena.ops.ports import free_port
from arena.ops.services import redis_server

pytestmark = pytest.mark.integration

OUTAGES = (3.0, 3.0)
"""Seconds Redis is down each time (the soak stopped it for 2-10 s)."""


WORKER = ("--concurrency", "2", "--loglevel", "INFO", "--without-gossip", "--without-mingle")
"""Two slots: with one busy the other keeps a BRPOP pending, which the crash needs."""


class RedisOnPort:
    """A Redis server of the test's own that can stop and start again on the same port."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.config = folder / "redis.conf"
        self.config.write_text(
            f"bind 127.0.0.1\nport {self.port}\ndir {folder}\nsave 60 1\nappendonly no\n"
            f"logfile {folder / 'redis.log'}\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(redis_server()), str(self.config)], start_new_session=True
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        pytest.fail("Redis did not start")

    def stop(self) -> None:
        """A clean stop: Redis saves its data (the unacknowledged hash included) on SIGTERM."""
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=10)
            self.process = None


@contextmanager
def worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "tests.tournament.sleepy_app",
                "worker",
                *WORKER,
            ],
            env=env,
            stdout=out,
            stderr=out,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _send(env: dict[str, str], seconds: float, marker: Path) -> None:
    code = f"from tests.tournament.sleepy_app import sleep; sleep.delay({seconds}, {str(marker)!r})"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=30)


def _fatal(log: Path) -> str:
    """The worker's fatal error, if it logged one (its first 300 characters)."""
    text = log.read_text(errors="replace")
    at = text.find("Unrecoverable error")
    return "" if at < 0 else text[at : at + 300]


def _unacked_drains(url: str, seconds: float) -> bool:
    """Whether kombu's hash of unacknowledged messages empties within `seconds`."""
    client = Redis.from_url(url)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if client.hlen("unacked") == 0:
                return True
            time.sleep(0.2)
        return False
    finally:
        client.close()


def _wait_for(path: Path, text: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and text in path.read_text():
            return True
        time.sleep(0.2)
    return False


def test_worker_with_an_unacknowledged_task_survives_redis_outages() -> None:
    with tempfile.TemporaryDirectory(prefix="arena-outage-") as tmp:
        folder = Path(tmp)
        redis = RedisOnPort(folder)
        redis.start()
        env = {
            **os.environ,
            "ARENA_REDIS_URL": redis.url,
            "ARENA_VISIBILITY_TIMEOUT": "60",
            "ARENA_WORKER_METRICS_PORT": "-1",
            "PROMETHEUS_MULTIPROC_DIR": tmp,
        }
        log, long_task, probe = folder / "worker.log", folder / "long", folder / "probe"
        try:
            with worker(env, log) as process:
                _send(env, 12.0, long_task)
                assert _wait_for(long_task, "start", 20), log.read_text()[-3000:]
                for seconds in OUTAGES:
                    redis.stop()
                    time.sleep(seconds)
                    redis.start()
                    time.sleep(2.0)
                assert _fatal(log) == "", "the worker gave up after an outage"
                # The consumer is back: new work runs, the long task ends and is acknowledged.
                _send(env, 0.0, probe)
                assert _wait_for(probe, "end", 20), log.read_text()[-3000:]
                assert _wait_for(long_task, "end", 20), log.read_text()[-3000:]
                assert _unacked_drains(redis.url, 10), (
                    "the late acknowledgement did not reach Redis"
                )
                assert process.poll() is None, log.read_text()[-3000:]
                assert _fatal(log) == ""
        finally:
            redis.stop()
