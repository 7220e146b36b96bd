"""A crossing match as a referee finds it after taking it over: played by another host up to some
decision, and a stand-in for the referee around it (for `BotRoutes`)."""

from __future__ import annotations

from typing import Any

import engines
from arena.referee.clock import Clock
from arena.referee.match import MatchRunner
from arena.referee.sessions import Hub

BOT, OTHER = 5, 6
"""The bots of seats 0 and 1."""


class StubReferee:
    """What `BotRoutes` reads of its referee: the hub and the one match it hosts."""

    def __init__(self, hub: Hub, runner: MatchRunner) -> None:
        self.hub = hub
        self.db: Any = None
        self.runners = {runner.match_id: runner}
        self.draining = False


def taken_over(hub: Hub, match_id: int, played: int, clock: Clock, epoch: int) -> MatchRunner:
    """Match `match_id` hosted here under lease `epoch`, its first `played` decisions already
    decided (every seat's default), none of them asked by this host."""
    runner = MatchRunner(
        match_id=match_id,
        rules=engines.get("crossing"),
        options={},
        seed=7,
        clock=clock,
        bots=[(BOT, "five"), (OTHER, "six")],
        hub=hub,
        store=None,  # type: ignore[arg-type]  # nothing is stored: no decision is applied here
        host="ref-new",
        epoch=epoch,
    )
    driver = runner.driver
    while driver.number < played:
        decision = driver.decision
        assert decision is not None
        for seat in decision.seats:
            driver.answer(seat, decision.number, driver.default(seat))
        driver.advance()
    return runner
