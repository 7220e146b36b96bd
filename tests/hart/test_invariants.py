"""Invariants over many random matches: every card and every dollar accounted for, no leaks."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from engines import Event, HashRng
from engines.driver import MatchDriver
from engines.hart.state import Bag, HartState
from tests.engines.conformance import Tally, play_checked
from tests.hart.build import RULES

SEEDS = 25


def walk(
    seats: int, seed: int, options: dict | None = None
) -> Iterator[tuple[HartState, HartState, list[Event]]]:
    """(before, after, events of that decision) for every decision of a random match."""
    driver = MatchDriver(RULES, seats, options or {}, seed)
    state = driver.state
    while (decision := RULES.decision(state)) is not None:
        rng = HashRng(seed, f"invariants:{decision.number}")
        joint = {s: RULES.legal_actions(state, s).sample(rng) for s in decision.seats}
        move = driver.play(joint)
        yield state, move.after, list(move.events)
        state = move.after


def bank_flows(seats: int, events: list[Event]) -> list[int]:
    """Per seat, the money the events say moved: bank flows and bribes."""
    flow = [0] * seats
    for event in events:
        data = dict(event.data)
        if event.kind == "open":
            flow[data["seat"]] += data["compensation"] - data["penalty_paid"]
        elif event.kind == "bribe":
            flow[data["seat"]] -= data["amount"]
            flow[data["sheriff"]] += data["amount"]
        elif event.kind == "sell":
            flow[data["seat"]] += data["income"]
        elif event.kind == "final_sale":
            for seat, income in enumerate(data["incomes"]):
                flow[seat] += income
    return flow


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_every_card_is_accounted_for_at_every_step(seats: int) -> None:
    full = Bag.full_deck()
    steps = 0
    for seed in range(SEEDS):
        assert MatchDriver(RULES, seats, {}, seed).state.total_cards() == full
        for _, after, _ in walk(seats, seed):
            assert after.total_cards() == full, f"seed {seed} decision {after.number - 1}"
            assert all(len(p.hand) <= 5 for p in after.players)
            steps += 1
    assert steps > SEEDS * 50


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_every_dollar_is_accounted_for(seats: int) -> None:
    moved = 0
    for seed in range(SEEDS):
        for before, after, events in walk(seats, seed):
            delta = [a.money - b.money for a, b in zip(after.players, before.players, strict=True)]
            assert delta == bank_flows(seats, events), f"seed {seed} decision {before.number}"
            assert all(p.money >= 0 for p in after.players)
            moved += sum(abs(d) for d in delta)
        final = after
        assert sum(p.money for p in final.players) >= 0
    assert moved > 0


@pytest.mark.parametrize("seats", [3, 6])
def test_sum_of_money_equals_start_plus_bank_flows(seats: int) -> None:
    for seed in range(5):
        state = MatchDriver(RULES, seats, {}, seed).state
        total = 30 * seats
        for _, after, events in walk(seats, seed):
            flows = bank_flows(seats, events)
            total += sum(flows)
            state = after
        assert sum(p.money for p in state.players) == total


def test_private_events_reach_only_their_audience() -> None:
    seen = 0
    driver = MatchDriver(RULES, 5, {}, 3)
    for decision in driver.run():
        rng = HashRng(3, f"invariants:{decision.number}")
        move = driver.play({s: driver.space(s).sample(rng) for s in decision.seats})
        for event in move.events:
            if event.kind == "seized":
                assert event.audience == {dict(event.data)["sheriff"], dict(event.data)["seat"]}
                seen += 1
                outsiders = set(range(5)) - set(event.audience)
                for viewer in [None, *outsiders]:
                    assert '"kind": "seized"' not in json.dumps(driver.view(viewer))
                insider = driver.view(min(event.audience))["events"]
                assert any(e["kind"] == "seized" for e in insider)
            else:
                assert event.audience is None, event.kind
    assert seen > 0


def test_a_seat_sees_the_events_since_it_last_decided() -> None:
    driver = MatchDriver(RULES, 4, {}, 5)
    decided_at = {s: -1 for s in range(4)}
    for decision in driver.run():
        for seat in decision.seats:
            numbers = {e["number"] for e in driver.view(seat)["events"]}
            assert numbers and min(numbers) >= decided_at[seat]
            assert max(numbers) == driver.number - 1 or driver.number == 0
        rng = HashRng(5, f"x{decision.number}")
        joint = {s: driver.space(s).sample(rng) for s in decision.seats}
        for seat in decision.seats:
            decided_at[seat] = decision.number
        driver.play(joint)


def test_scramble_keeps_every_view_and_hides_the_rest() -> None:
    state = MatchDriver(RULES, 4, {}, 9).state
    for _, after, _ in walk(4, 9):
        state = after
        if state.number == 40:
            break
    changed = 0
    for viewer in (None, 0, 1, 2, 3):
        mixed = RULES.scramble(state, viewer, HashRng(1, f"s{viewer}"))
        assert mixed.total_cards() == Bag.full_deck()
        assert RULES.dump_observation(RULES.observe(mixed, viewer)) == RULES.dump_observation(
            RULES.observe(state, viewer)
        )
        if viewer is not None:
            assert mixed.players[viewer] == state.players[viewer]
        changed += mixed != state
    assert changed >= 4


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_variant_options_pass_the_conformance_checks(seats: int) -> None:
    options = {"strict_count": True, "next_sheriff_tie": "zh", "max_offers": 1}
    tally = Tally()
    for seed in range(8):
        play_checked(RULES, seats, seed, options, deep=seed < 2, tally=tally)
    assert tally.scrambles_that_changed_state > 0
