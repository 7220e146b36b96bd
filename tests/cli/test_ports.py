"""`free_port`: the ports that `arena demo`, tests and benchmarks give the services they start."""

from __future__ import annotations

import socket

import pytest

from arena.ops import ports
from arena.ops.ports import free_port, is_free


def test_free_ports_are_free_distinct_and_below_the_ephemeral_range() -> None:
    low = int(ports.EPHEMERAL_RANGE.read_text().split()[0])
    chosen = [free_port() for _ in range(200)]
    assert len(set(chosen)) == len(chosen)
    assert all(ports.LOWEST_CHOSEN_PORT <= p < low for p in chosen)
    assert all(is_free(p, "127.0.0.1") for p in chosen)


def test_a_port_someone_listens_on_is_never_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        taken = listener.getsockname()[1]
        # A chooser that offers the taken port first must be refused, then move on.
        offers = iter([taken, taken + 1 if taken + 1 != 65536 else taken - 1])

        class Chooser:
            def randrange(self, start: int, stop: int) -> int:
                return next(offers)

        monkeypatch.setattr(ports, "_ephemeral_low", lambda: 65_535)
        monkeypatch.setattr(ports.random, "SystemRandom", Chooser)
        monkeypatch.setattr(ports, "_handed_out", set())
        assert free_port() != taken


def test_without_a_readable_range_the_kernel_chooses(monkeypatch: pytest.MonkeyPatch) -> None:
    low, high = (int(n) for n in ports.EPHEMERAL_RANGE.read_text().split())
    monkeypatch.setattr(ports, "EPHEMERAL_RANGE", ports.Path("/nonexistent/range"))
    port = free_port()
    assert low <= port <= high, f"{port} is not the kernel's choice (its range: {low}-{high})"
    assert is_free(port, "127.0.0.1")


def test_a_stack_reserves_its_planned_ports(
    tmp_path: ports.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stack's ports, its runners' unchosen ones included, are never chosen again in the
    process (its embedded Redis chooses after they were checked free)."""
    from arena.ops.stack import Stack, StackConfig

    monkeypatch.setattr(ports, "_handed_out", set())
    monkeypatch.setattr("arena.ops.stack_runners.shutil.which", lambda name: "/usr/bin/bwrap")
    stack = Stack(
        StackConfig(data_dir=tmp_path, port=20_000, runner_metrics_port=21_000, runners=3)
    )
    assert {20_000, 21_000, 21_001, 21_002} <= ports._handed_out
    assert [r.metrics_port for r in stack.runners] == [21_000, 21_001, 21_002]
