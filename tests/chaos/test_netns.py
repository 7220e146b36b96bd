"""The namespaces of the soak's `referee-partition` fault (arena/chaos/netns.py): a cut referee
loses Redis and nothing else, and heals; without root the fault says why it cannot run."""

from __future__ import annotations

import itertools
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from arena.chaos.netns import Namespaces, can_partition

PORT = 47123
_SERIAL = itertools.count()


def test_without_root_the_fault_names_what_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert can_partition() == "needs root (network namespaces)"


@pytest.fixture
def spaces() -> Iterator[Namespaces]:
    if can_partition():
        pytest.skip(f"referee-partition: {can_partition()}")
    # A tag (names and addresses) of each test's own: the kernel may still be deleting the last
    # test's veth pairs when the next one creates its own.
    made = Namespaces(tag=90000 + os.getpid() % 1000 * 10 + next(_SERIAL))
    try:
        made.create(2)
        yield made
    finally:
        made.remove()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert made.name(0) not in listed


def _serve(address: str) -> socket.socket:
    """A listener on the host that answers every connection with b"ok"."""
    server = socket.create_server((address, PORT))

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.sendall(b"ok")

    threading.Thread(target=answer, daemon=True).start()
    return server


def _reaches(spaces: Namespaces, i: int, address: str) -> bool:
    """Whether a client in namespace i gets b"ok" from `address` within a second."""
    client = (
        "import socket,sys\n"
        f"s = socket.create_connection(({address!r}, {PORT}), timeout=1)\n"
        "sys.exit(0 if s.recv(2) == b'ok' else 1)\n"
    )
    done = subprocess.run(
        [*spaces.prefix(i), sys.executable, "-c", client], capture_output=True, timeout=30
    )
    return done.returncode == 0


def test_a_cut_referee_loses_redis_only_and_heals(spaces: Namespaces) -> None:
    redis = [_serve(spaces.redis_address(i)) for i in range(2)]
    others = _serve(f"{spaces.net}.0.1")  # the host side of namespace 0: bots' traffic
    try:
        assert _reaches(spaces, 0, spaces.redis_address(0))
        spaces.cut(0)
        assert not _reaches(spaces, 0, spaces.redis_address(0))
        assert _reaches(spaces, 0, f"{spaces.net}.0.1"), "the cut takes Redis away, not the host"
        assert _reaches(spaces, 1, spaces.redis_address(1)), "the other referee keeps Redis"
        spaces.heal(0)
        assert _reaches(spaces, 0, spaces.redis_address(0))
    finally:
        for server in [*redis, others]:
            # shutdown wakes the thread blocked in accept(); close alone leaves it blocked for good
            server.shutdown(socket.SHUT_RDWR)
            server.close()


def test_the_host_reaches_a_referee_in_its_namespace(spaces: Namespaces) -> None:
    listener = (
        "import socket\n"
        f"s = socket.create_server(({spaces.host(1)!r}, {PORT}))\n"
        "print('up', flush=True)\n"
        "c, _ = s.accept(); c.sendall(b'ok')\n"
    )
    inside = subprocess.Popen(
        [*spaces.prefix(1), sys.executable, "-c", listener], stdout=subprocess.PIPE
    )
    try:
        assert inside.stdout is not None and inside.stdout.readline() == b"up\n"
        spaces.cut(1)  # a referee cut off from Redis still has its bots
        with socket.create_connection((spaces.host(1), PORT), timeout=2) as conn:
            assert conn.recv(2) == b"ok"
    finally:
        inside.kill()
        inside.wait()
        if inside.stdout is not None:
            inside.stdout.close()
