"""What TLS costs on the referee's port: ping-pong throughput and latency, and a new connection.

Two figures, each with its plaintext baseline timed in the same run (throwaway certificates made
here with `cryptography`, as in the tests):

- bare grpc.aio ping-pong (bench/echo.py) on K streams, plaintext and TLS alternating for
  --rounds rounds (the machine is shared: alternation spreads its noise over both): round
  trips/s, p50 and p99, server CPU per round trip of each mode's median run; the median of the
  per-round ratios TLS / plaintext.
- a new connection: open a channel, make one exchange, close it, N times in a row, plaintext then
  TLS (TLS 1.3, ECDSA P-256): milliseconds each; what a reconnecting bot or a CLI command pays.

    .venv/bin/python bench/tls.py [--streams K] [--seconds S] [--rounds R] [--connections N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")  # before grpc loads: no GOAWAY info lines

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.echo import METHOD, EchoRun, _handler, run_echo
from tests.tlscerts import Pki


def _line(name: str, run: EchoRun) -> str:
    ordered = sorted(run.latencies) or [0.0]
    p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]
    return (
        f"  {name:<9} {run.rate:>8,.0f} round trips/s, p50 {ordered[len(ordered) // 2] * 1e3:.2f} "
        f"ms, p99 {p99 * 1e3:.2f} ms, server CPU {run.server_cpu_per_trip * 1e6:.0f} us/trip"
    )


async def connections(count: int, pki: Pki | None) -> float:
    """Mean seconds to open a channel, make one exchange and close it (server in this process)."""
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((_handler(100, [0]),))
    if pki is None:
        port = server.add_insecure_port("127.0.0.1:0")
    else:
        pair = (pki.server_key.read_bytes(), pki.server_cert.read_bytes())
        port = server.add_secure_port("127.0.0.1:0", grpc.ssl_server_credentials([pair]))
    await server.start()
    address = f"127.0.0.1:{port}"
    roots = pki.ca.read_bytes() if pki else b""
    try:
        began = time.perf_counter()
        for _ in range(count):
            if pki is None:
                channel = grpc.aio.insecure_channel(address)
            else:
                credentials = grpc.ssl_channel_credentials(roots)
                channel = grpc.aio.secure_channel(address, credentials)
            async with channel:
                call = channel.stream_stream(METHOD)()
                await call.write(b"a")
                await call.read()
                await call.done_writing()
        return (time.perf_counter() - began) / count
    finally:
        await server.stop(0)


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=64, help="streams (default 64)")
    parser.add_argument("--seconds", type=float, default=3.0, help="per run (default 3)")
    parser.add_argument("--rounds", type=int, default=3, help="alternations (default 3)")
    parser.add_argument("--connections", type=int, default=200, help="new connections (200)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        pki = Pki.create(Path(folder))
        files = (pki.server_cert, pki.server_key, pki.ca)
        plains, tlss = [], []
        for _ in range(args.rounds):
            plains.append(asyncio.run(run_echo(args.streams, 1500, args.seconds)))
            tlss.append(asyncio.run(run_echo(args.streams, 1500, args.seconds, files)))
        plain_connect = asyncio.run(connections(args.connections, None))
        tls_connect = asyncio.run(connections(args.connections, pki))
    rates = [t.rate / p.rate for p, t in zip(plains, tlss, strict=True)]
    cpus = [
        t.server_cpu_per_trip / max(p.server_cpu_per_trip, 1e-9)
        for p, t in zip(plains, tlss, strict=True)
    ]
    print(
        f"ping-pong on {args.streams} streams, 1500-byte replies, {args.rounds} x "
        f"{args.seconds:g} s each (median runs):"
    )
    print(_line("plaintext", sorted(plains, key=lambda r: r.rate)[len(plains) // 2]))
    print(_line("TLS", sorted(tlss, key=lambda r: r.rate)[len(tlss) // 2]))
    print(
        f"  TLS / plaintext (median of {args.rounds} rounds): "
        f"{statistics.median(rates):.2f} of the round trips/s "
        f"(rounds: {', '.join(f'{r:.2f}' for r in rates)}), "
        f"{statistics.median(cpus):.2f}x the server CPU per trip"
    )
    print(f"new connection + one exchange, {args.connections} in a row:")
    print(
        f"  plaintext {plain_connect * 1e3:.2f} ms, TLS {tls_connect * 1e3:.2f} ms "
        f"({tls_connect / plain_connect:.1f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
