"""A signalled referee exits even when its orderly stop hangs (a peer that never answers)."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest

from arena.referee import server


class HangingStop:
    """Stands in for a RunningServer whose stop never returns."""

    port = 0
    stopped = False

    async def stop(self) -> None:
        self.stopped = True
        await asyncio.Event().wait()


def test_a_hanging_stop_is_given_up_after_stop_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server, "STOP_SECONDS", 0.2)
    running = HangingStop()

    async def scenario() -> float:
        loop = asyncio.get_running_loop()
        loop.call_later(0.05, os.kill, os.getpid(), signal.SIGTERM)
        began = loop.time()
        await asyncio.wait_for(server.serve_until_signalled(running), 5)  # type: ignore[arg-type]
        return loop.time() - began

    took = asyncio.run(scenario())
    assert running.stopped
    assert 0.2 <= took < 2.0
