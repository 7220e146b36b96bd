"""The conformance suite every registered game must pass: random legal play with checks per step.

Modelled on OpenSpiel's random_sim_test and PettingZoo's seed_test. `play_checked` drives one match
with uniformly random legal actions and checks the contract at every decision; the test module
runs it over every game, every seat count, every preset and many seeds.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from engines import (
    GameOver,
    HashRng,
    IllegalAction,
    NotYourDecision,
    Record,
    Rules,
    StaleDecision,
)
from engines.driver import MatchDriver
from engines.replay import replay  # the function: `import engines.replay` shadows the lazy name

MAX_DECISIONS = 200_000


@dataclass
class Tally:
    """What the checks saw, so the suite can assert that its own checks had teeth."""

    decisions: int = 0
    scrambles: int = 0
    scrambles_that_changed_state: int = 0
    simultaneous: int = 0
    labels: set[str] = field(default_factory=set)


def random_joint(driver: MatchDriver[Any, Any], seed: int, number: int) -> dict[int, Any]:
    """A uniformly random legal joint action, from a stream that is not the match's own."""
    decision = driver.decision
    assert decision is not None
    rng = HashRng(seed, f"random-player:{number}")
    return {seat: driver.space(seat).sample(rng) for seat in sorted(decision.seats)}


def check_ranks(ranks: tuple[int, ...], seats: int) -> None:
    """Ranks are a valid competition ranking: a seat of rank r has exactly r-1 seats above it."""
    assert len(ranks) == seats
    for rank in ranks:
        assert 1 <= rank <= seats
        assert sum(1 for other in ranks if other < rank) == rank - 1


def check_space(rules: Rules[Any, Any, Any], state: Any, seat: int, rng: HashRng) -> None:
    """The legal actions of one seat are consistent and round-trip through JSON."""
    space = rules.legal_actions(state, seat)
    default = space.default()
    assert default in space, f"default {default!r} is not legal"
    listing = space.listing()
    if listing is not None:
        assert len(listing) > 0
        assert list(listing) == list(rules.legal_actions(state, seat).listing() or [])
        for action in listing:
            assert action in space
        assert len(set(map(rules.describe_action, listing))) == len(listing), "duplicate actions"
    else:
        json.dumps(space.describe())
    samples = [space.sample(rng) for _ in range(3)]
    for action in [default, *samples]:
        assert action in space
        wire = json.loads(json.dumps(rules.dump_action(action)))
        assert rules.parse_action(seat, wire) == action, f"{wire} does not round-trip"


def check_no_leak(
    rules: Rules[Any, Any, Any], state: Any, seats: int, rng: HashRng, tally: Tally
) -> None:
    """A view never changes when everything its viewer may not know is re-dealt."""
    for viewer in [*range(seats), None]:
        scrambled = rules.scramble(state, viewer, rng)
        tally.scrambles += 1
        if scrambled != state:
            tally.scrambles_that_changed_state += 1
        mine = rules.dump_observation(rules.observe(state, viewer))
        theirs = rules.dump_observation(rules.observe(scrambled, viewer))
        assert mine == theirs, f"seat {viewer}'s view depends on secrets it may not know"


def play_checked(
    rules: Rules[Any, Any, Any],
    seats: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    deep: bool = True,
    tally: Tally | None = None,
) -> tuple[Record, Any]:
    """Play one random match, checking the contract at every decision; return its record."""
    tally = tally if tally is not None else Tally()
    options = rules.resolve_options(options or {})
    driver: MatchDriver[Any, Any] = MatchDriver(rules, seats, options, seed)
    assert driver.outcome() is None or driver.decision is None
    check_rng = HashRng(seed, "conformance")
    for number in range(MAX_DECISIONS):
        decision = driver.decision
        if decision is None:
            break
        state = driver.state
        assert decision == rules.decision(state), "the driver asks what the rules ask"
        tally.decisions += 1
        tally.labels.add(decision.label)
        if len(decision.seats) > 1:
            tally.simultaneous += 1
        assert driver.outcome() is None, "a running match has no outcome"
        assert decision.number == number == driver.number, "decision numbers count up from 0"
        assert decision.seats, "a decision names at least one seat"
        assert decision.seats <= set(range(seats))
        assert driver.pending() == decision.seats, "nobody has answered a new decision"
        joint = random_joint(driver, seed, number)
        if not deep:  # every seed: each deciding seat has a legal default; played actions parse
            for seat, action in joint.items():
                space = driver.space(seat)
                assert space.default() in space and action in space
                assert driver.default(seat) == space.default()
            move = driver.play(joint)
        else:  # the first seeds: every view, every listed action, no leaks, no mutation
            for viewer in [*range(seats), None]:
                json.dumps(rules.dump_observation(rules.observe(state, viewer)))
                json.dumps(driver.view(viewer))
            for seat in decision.seats:
                check_space(rules, state, seat, check_rng)
                assert driver.space(seat).listing() == rules.legal_actions(state, seat).listing()
            check_no_leak(rules, state, seats, check_rng, tally)
            outsider = next((s for s in range(seats) if s not in decision.seats), None)
            if outsider is not None:
                bad = dict(joint)
                bad[outsider] = next(iter(joint.values()))
                with pytest.raises(NotYourDecision):
                    rules.apply(state, bad, HashRng(0, "x"))
                with pytest.raises(NotYourDecision):
                    driver.answer(outsider, number, bad[outsider])
            with pytest.raises(StaleDecision):
                driver.answer(min(decision.seats), number + 1, joint[min(decision.seats)])
            # Bytes, not a deep copy: a state's own copy hooks cannot hide a mutation.
            before = pickle.dumps(state)
            partial = dict(list(joint.items())[:-1])
            with pytest.raises(IllegalAction):
                rules.apply(state, partial, HashRng(0, "x"))
            for seat, action in partial.items():
                driver.answer(seat, number, action)
            with pytest.raises(IllegalAction):
                driver.advance()  # the last deciding seat has not answered
            last, action = list(joint.items())[-1]
            driver.answer(last, number, action)
            assert not driver.pending()
            move = driver.advance()
            assert pickle.dumps(state) == before, "apply mutated its input"
            assert move.before is state
        assert move.decision == decision and dict(move.joint) == joint
        assert move.after is driver.state
    else:
        pytest.fail(f"{rules.name} did not end within {MAX_DECISIONS} decisions")

    state = driver.state
    result = driver.outcome()
    assert result is not None, "a finished match has an outcome"
    assert result == rules.outcome(state)
    check_ranks(result.ranks, seats)
    assert len(result.scores) == seats
    with pytest.raises(GameOver):
        rules.apply(state, {}, HashRng(0, "x"))
    with pytest.raises(GameOver):
        driver.advance()
    for viewer in [*range(seats), None]:
        json.dumps(rules.dump_observation(rules.observe(state, viewer)))
        json.dumps(driver.view(viewer))

    # The record holds the wire form: replaying it through JSON round-trips every played action.
    record = driver.record()
    assert record.options == options and record.seats == seats and record.seed == seed
    loaded = Record.from_json(json.loads(json.dumps(record.to_json())))
    assert loaded == record
    assert replay(rules, loaded) == state, "replay differs from the live match"
    return record, state
