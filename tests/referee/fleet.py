"""Several `arena serve` processes forming one arena: same database, same Redis, own names."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg

from arena.ops.ports import free_port
from arena.v1 import arena_pb2
from tests.referee.harness import ADMIN, stub


class Fleet:
    """N referee processes; referee i is named `ref-i` and listens on `addresses[i]`."""

    def __init__(
        self,
        database_url: str,
        redis_url: str,
        count: int,
        logs: Path,
        lease: float = 2.0,
        per_decision: float = 2.0,
        hosts: list[tuple[str, list[str]]] | None = None,
    ) -> None:
        """`hosts`: per referee, its own IP address and the command prefix that runs a process
        there (e.g. `ip netns exec NS`); by default every referee is on 127.0.0.1."""
        self.database_url = database_url
        self.redis_url = redis_url
        self.ports = [free_port() for _ in range(count)] if hosts is None else [50051] * count
        ips = ["127.0.0.1"] * count if hosts is None else [ip for ip, _ in hosts]
        self.wrap = [[] for _ in range(count)] if hosts is None else [w for _, w in hosts]
        self.addresses = [f"{ip}:{port}" for ip, port in zip(ips, self.ports, strict=True)]
        self.logs = logs
        self.lease = lease
        self.per_decision = per_decision
        self.processes: list[subprocess.Popen[bytes] | None] = [None] * count

    def name(self, index: int) -> str:
        return f"ref-{index}"

    def start(self, index: int) -> None:
        env = {
            **os.environ,
            "ARENA_DATABASE_URL": self.database_url,
            "ARENA_REDIS_URL": self.redis_url,
            "ARENA_LOG_FORMAT": "text",
        }
        with (self.logs / f"{self.name(index)}.log").open("ab") as log:
            self.processes[index] = subprocess.Popen(
                [
                    *self.wrap[index],
                    sys.executable,
                    "-m",
                    "arena.cli.main",
                    "serve",
                    "--port",
                    str(self.ports[index]),
                    "--metrics-port",
                    "-1",
                    "--name",
                    self.name(index),
                    "--admin-token",
                    ADMIN,
                    "--per-decision",
                    str(self.per_decision),
                    "--lease",
                    str(self.lease),
                    "--advertise",
                    self.addresses[index],
                ],
                env=env,
                stdout=log,
                stderr=log,
            )

    async def start_all(self) -> None:
        for index in range(len(self.ports)):
            self.start(index)
        for address in self.addresses:
            await until_serving(address)
        await self.until_live(len(self.ports))

    async def until_live(self, count: int, timeout: float = 20.0) -> list[arena_pb2.Referee]:
        """Wait until the arena lists `count` live referees; return them."""
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while True:
            for index, address in enumerate(self.addresses):
                if self.processes[index] is None or self.processes[index].poll() is not None:
                    continue
                channel, api = stub(address)
                async with channel:
                    try:
                        listed = await api.ListReferees(arena_pb2.ListRefereesRequest(), timeout=2)
                    except Exception:  # that one is stopping or stopped: ask another
                        continue
                if len(listed.referees) == count:
                    return list(listed.referees)
                break
            if loop.time() > until:
                raise TimeoutError(f"the arena never listed {count} live referees")
            await asyncio.sleep(0.1)

    def signal(self, index: int, sig: signal.Signals) -> None:
        process = self.processes[index]
        assert process is not None
        process.send_signal(sig)

    def index_of(self, name: str) -> int:
        return int(name.rsplit("-", 1)[1])

    def stop_all(self) -> None:
        for process in self.processes:
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
        for process in self.processes:
            if process is not None:
                process.wait(10)

    def log_tail(self) -> str:
        return "\n".join(
            f"== {path.name}\n{path.read_text()[-4000:]}"
            for path in sorted(self.logs.glob("*.log"))
        )

    def decisions(self, match_id: int) -> list[tuple[int, int]]:
        """(number, epoch) of every logged decision of the match, by number."""
        with psycopg.connect(self.database_url) as conn:
            rows = conn.execute(
                "SELECT number, epoch FROM decisions WHERE match_id = %s ORDER BY number",
                (match_id,),
            ).fetchall()
        return [(int(n), int(e)) for n, e in rows]

    def lease_of(self, match_id: int) -> tuple[str, int]:
        """(host, lease epoch) of the match as stored."""
        with psycopg.connect(self.database_url) as conn:
            row = conn.execute(
                "SELECT host, lease_epoch FROM matches WHERE id = %s", (match_id,)
            ).fetchone()
        assert row is not None
        return str(row[0]), int(row[1])


async def until_serving(address: str, timeout: float = 30.0) -> None:
    channel, api = stub(address)
    async with channel:
        for _ in range(int(timeout / 0.1)):
            try:
                await api.ListGames(arena_pb2.ListGamesRequest(), timeout=1)
                return
            except Exception:  # not listening yet
                await asyncio.sleep(0.1)
    raise TimeoutError(f"no referee at {address}")
