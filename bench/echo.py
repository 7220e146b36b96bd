"""Baseline for `referee.py`: bare grpc.aio ping-pong on K streams, in the referee's process layout.

The server runs in the calling process (where the referee runs); the clients run in one child
process (where the bots run), one bidirectional stream each, every stream with one exchange in
flight at a time, as a bot with one seat to play has. A client sends a small message (the size of
an answer) and waits for a reply the size of a typical DecisionRequest; the round trip is timed by
the client. Raw bytes, no protobuf: this is what the transport alone carries.

    .venv/bin/python bench/echo.py [--streams K] [--size BYTES] [--seconds S]

`run_echo(..., tls=(cert, key, ca))` runs the same over TLS (bench/tls.py compares the two).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

METHOD = "/bench.Echo/Chat"
ANSWER_SIZE = 24
"""Bytes a bot's answer takes on the wire (an Action with an index), roughly."""


@dataclass(frozen=True, slots=True)
class EchoRun:
    """What the bare ping-pong did."""

    streams: int
    size: int
    round_trips: int
    seconds: float
    latencies: list[float]
    server_cpu: float = 0.0
    """CPU seconds of the serving process, over every exchange it answered."""
    answered: int = 0
    """Exchanges the server answered (the measured ones and each stream's warm-up)."""

    @property
    def server_cpu_per_trip(self) -> float:
        """The serving process's CPU seconds per exchange."""
        return self.server_cpu / self.answered if self.answered else 0.0

    @property
    def rate(self) -> float:
        """Round trips per second, over every stream."""
        return self.round_trips / self.seconds


def _handler(size: int, answered: list[int]) -> grpc.GenericRpcHandler:
    reply = b"x" * size

    async def chat(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        async for _ in requests:
            answered[0] += 1
            yield reply

    return grpc.method_handlers_generic_handler(
        "bench.Echo", {"Chat": grpc.stream_stream_rpc_method_handler(chat)}
    )


def _channel(address: str, ca: str) -> grpc.aio.Channel:
    """A plaintext channel, or a TLS one trusting the PEM CA file `ca`."""
    if not ca:
        return grpc.aio.insecure_channel(address)
    return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(Path(ca).read_bytes()))


async def _clients(address: str, streams: int, seconds: float, ca: str = "") -> dict[str, Any]:
    """The child's side: `streams` streams ping-ponging for `seconds`; counts and latencies."""
    latencies: list[float] = []
    async with _channel(address, ca) as channel:
        chat = channel.stream_stream(METHOD)
        ready = asyncio.Event()
        until = [0.0]

        async def one() -> None:
            call = chat()
            await call.write(b"w" * ANSWER_SIZE)  # warm the stream up before the clock starts
            await call.read()
            await ready.wait()
            while time.perf_counter() < until[0]:
                began = time.perf_counter()
                await call.write(b"a" * ANSWER_SIZE)
                await call.read()
                latencies.append(time.perf_counter() - began)
            await call.done_writing()

        tasks = [asyncio.create_task(one()) for _ in range(streams)]
        await asyncio.sleep(0.5)
        began = time.perf_counter()
        until[0] = began + seconds
        ready.set()
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - began
    return {"latencies": latencies, "seconds": elapsed}


def client_worker() -> None:
    """The child process: read the plan on stdin, ping-pong, report on stdout."""
    plan = json.loads(sys.stdin.readline())
    report = asyncio.run(
        _clients(plan["address"], plan["streams"], plan["seconds"], plan.get("ca", ""))
    )
    sys.stdout.write(json.dumps(report) + "\n")


async def run_echo(
    streams: int, size: int, seconds: float, tls: tuple[Path, Path, Path] | None = None
) -> EchoRun:
    """Serve here, ping-pong from a child process, and return what it measured; over TLS when
    `tls` gives (certificate, key, CA) PEM files."""
    answered = [0]
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((_handler(size, answered),))
    if tls is None:
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        pair = (tls[1].read_bytes(), tls[0].read_bytes())
        port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([pair]))
    await server.start()
    try:
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            str(Path(__file__).resolve()),
            "--client-worker",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        plan = {"address": f"127.0.0.1:{port}", "streams": streams, "seconds": seconds}
        plan["ca"] = str(tls[2]) if tls else ""
        began_cpu = time.process_time()
        out, _ = await child.communicate((json.dumps(plan) + "\n").encode())
        server_cpu = time.process_time() - began_cpu
        report = json.loads(out or b"{}")
    finally:
        await server.stop(0.2)
    latencies = report.get("latencies", [])
    elapsed = report.get("seconds", seconds)
    return EchoRun(streams, size, len(latencies), elapsed, latencies, server_cpu, answered[0])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the bare ping-pong alone and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=64, help="streams (default 64)")
    parser.add_argument("--size", type=int, default=1500, help="reply bytes (default 1500)")
    parser.add_argument("--seconds", type=float, default=3.0, help="duration (default 3)")
    parser.add_argument("--client-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client_worker:
        client_worker()
        return 0
    run = asyncio.run(run_echo(args.streams, args.size, args.seconds))
    ordered = sorted(run.latencies) or [0.0]
    p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]
    print(
        f"bare grpc.aio ping-pong, {run.streams} streams, {run.size}-byte replies: "
        f"{run.rate:,.0f} round trips/s, p50 {ordered[len(ordered) // 2] * 1e3:.2f} ms, "
        f"p99 {p99 * 1e3:.2f} ms; server CPU {run.server_cpu_per_trip * 1e6:.0f} us per round trip"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
