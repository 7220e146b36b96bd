"""The match driver: one check per answer, legal actions once per decision, events by cursor."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from engines import (
    Decision,
    Event,
    GameOver,
    IllegalAction,
    Json,
    ListedSpace,
    MatchDriver,
    NotYourDecision,
    Rng,
    Seat,
    StaleDecision,
    Transition,
)
from engines.replay import replay  # the function: `import engines.replay` shadows the lazy name
from tests.engines.toy import HighCard, ToyState


class EventfulHighCard(HighCard):
    """High card on the Transition contract: a private deal, then a public event per decision."""

    name = "toy-events"

    def __init__(self) -> None:
        self.listings = 0

    def start(self, seats: int, options: Mapping[str, object], rng: Rng) -> Transition[ToyState]:
        state = super().start(seats, options, rng).state
        dealt = tuple(
            Event.make(-1, "dealt", (seat,), cards=list(hand))
            for seat, hand in enumerate(state.hands)
        )
        return Transition(state, dealt)

    def step(
        self, state: ToyState, decision: Decision, actions: Mapping[Seat, int], rng: Rng
    ) -> Transition[ToyState]:
        after = super().step(state, decision, actions, rng).state
        played: Json = [actions[s] for s in sorted(actions)]
        return Transition(after, (Event.make(decision.number, decision.label, cards=played),))

    def legal_actions(self, state: ToyState, seat: Seat) -> ListedSpace[int]:
        self.listings += 1
        return super().legal_actions(state, seat)


def kinds(view: dict[str, Json]) -> list[tuple[object, object]]:
    events = view["events"]
    assert isinstance(events, list)
    return [(e["number"], e["kind"]) for e in events if isinstance(e, dict)]


def test_a_seat_sees_its_private_deal_and_the_events_since_it_last_decided() -> None:
    driver = MatchDriver(EventfulHighCard(), 2, {}, seed=3)
    assert kinds(driver.view(0)) == [(-1, "dealt")]
    assert kinds(driver.view(None)) == [], "the public view never shows a private deal"
    for _ in range(3):
        decision = driver.decision
        assert decision is not None and decision.label == "play"
        driver.play({seat: driver.default(seat) for seat in decision.seats})
    # Seat 1 last decided at decision 2; seat 0 then decides alone (the double).
    assert kinds(driver.view(1)) == [(2, "play")]
    driver.play({0: 1})
    assert driver.decision is None
    assert kinds(driver.view(0)) == [(3, "double")]
    assert kinds(driver.view(1)) == [(2, "play"), (3, "double")]
    assert kinds(driver.view(None)) == [(3, "double")], "the public view: the last decision"


def test_each_answer_is_checked_once_and_legal_actions_listed_once_per_seat() -> None:
    rules = EventfulHighCard()
    driver = MatchDriver(rules, 3, {}, seed=5)
    decision = driver.decision
    assert decision is not None
    hand = driver.space(1).listing()
    assert hand is not None
    with pytest.raises(StaleDecision):
        driver.answer(1, decision.number + 1, hand[0])
    with pytest.raises(IllegalAction):
        driver.answer(1, decision.number, 99)
    driver.answer(1, decision.number, hand[0])
    with pytest.raises(IllegalAction, match="needs an action"):
        driver.advance()
    for seat in (0, 2):
        driver.answer(seat, decision.number, driver.default(seat))
    driver.view(0), driver.view(1), driver.view(2)
    assert rules.listings == 3, "one listing per deciding seat, however often it is asked"
    driver.advance()
    for _ in range(2):
        driver.play({seat: driver.default(seat) for seat in range(3)})
    with pytest.raises(NotYourDecision):
        driver.answer(2, driver.number, 0)
    driver.play({0: 0})
    with pytest.raises(GameOver):
        driver.advance()


def test_the_record_replays_to_the_same_state() -> None:
    rules = EventfulHighCard()
    driver = MatchDriver(rules, 2, {}, seed=11)
    while (decision := driver.decision) is not None:
        driver.play({seat: list(driver.space(seat).listing() or [])[-1] for seat in decision.seats})
    record = driver.record()
    assert len(record.moves) == 4
    assert replay(rules, record) == driver.state
    outcome = driver.outcome()
    assert outcome is not None and sorted(outcome.ranks)[0] == 1
