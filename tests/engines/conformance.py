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
    replay,
)
from engines.replay import advance, start

MAX_DECISIONS = 200_000


@dataclass
class Tally:
    """What the checks saw, so the suite can assert that its own checks had teeth."""

    decisions: int = 0
    scrambles: int = 0
    scrambles_that_changed_state: int = 0
    simultaneous: int = 0
    labels: set[str] = field(default_factory=set)


def random_joint(rules: Rules[Any, Any, Any], state: Any, seed: int, number: int) -> dict[int, Any]:
    """A uniformly random legal joint action, from a stream that is not the match's own."""
    decision = rules.decision(state)
    assert decision is not None
    rng = HashRng(seed, f"random-player:{number}")
    return {seat: rules.legal_actions(state, seat).sample(rng) for seat in sorted(decision.seats)}


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
    state = start(rules, seats, options, seed)
    assert rules.outcome(state) is None or rules.decision(state) is None
    check_rng = HashRng(seed, "conformance")
    moves: list[dict[int, Any]] = []
    for number in range(MAX_DECISIONS):
        decision = rules.decision(state)
        if decision is None:
            break
        tally.decisions += 1
        tally.labels.add(decision.label)
        if len(decision.seats) > 1:
            tally.simultaneous += 1
        assert rules.outcome(state) is None, "a running match has no outcome"
        assert decision.number == number, "decision numbers count up from 0"
        assert decision.seats, "a decision names at least one seat"
        assert decision.seats <= set(range(seats))
        joint = random_joint(rules, state, seed, number)
        if not deep:  # every seed: each deciding seat has a legal default; played actions parse
            for seat, action in joint.items():
                space = rules.legal_actions(state, seat)
                assert space.default() in space and action in space
        if deep:  # the first seeds: every view, every listed action, no leaks, no mutation
            for viewer in [*range(seats), None]:
                json.dumps(rules.dump_observation(rules.observe(state, viewer)))
            for seat in decision.seats:
                check_space(rules, state, seat, check_rng)
            check_no_leak(rules, state, seats, check_rng, tally)
            outsider = next((s for s in range(seats) if s not in decision.seats), None)
            if outsider is not None:
                bad = dict(joint)
                bad[outsider] = next(iter(joint.values()))
                with pytest.raises(NotYourDecision):
                    rules.apply(state, bad, HashRng(0, "x"))
            if len(joint) > 0:
                partial = dict(list(joint.items())[:-1])
                with pytest.raises(IllegalAction):
                    rules.apply(state, partial, HashRng(0, "x"))
            # Bytes, not a deep copy: a state's own copy hooks cannot hide a mutation.
            before = pickle.dumps(state)
            after = advance(rules, state, decision, joint, seed)
            assert pickle.dumps(state) == before, "apply mutated its input"
        else:
            after = advance(rules, state, decision, joint, seed)
        # The record holds the wire form: replaying it below round-trips every played action.
        moves.append(
            {seat: json.loads(json.dumps(rules.dump_action(a))) for seat, a in joint.items()}
        )
        state = after
    else:
        pytest.fail(f"{rules.name} did not end within {MAX_DECISIONS} decisions")

    result = rules.outcome(state)
    assert result is not None, "a finished match has an outcome"
    check_ranks(result.ranks, seats)
    assert len(result.scores) == seats
    with pytest.raises(GameOver):
        rules.apply(state, {}, HashRng(0, "x"))
    for viewer in [*range(seats), None]:
        json.dumps(rules.dump_observation(rules.observe(state, viewer)))

    record = Record(rules.name, rules.version, options, seats, seed, tuple(moves))
    assert Record.from_json(json.loads(json.dumps(record.to_json()))) == record
    assert replay(rules, record) == state, "replay differs from the live match"
    return record, state
