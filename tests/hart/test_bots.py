"""The heuristic bot: legal answers only, and it beats random play clearly."""

from __future__ import annotations

import pytest

from arena.sdk.bots.base import RandomStrategy, Strategy, strategy
from arena.sdk.bots.hart import HartHeuristic, at_stake, best_declaration, split
from arena.sdk.local import make_turn, play_local
from engines import HashRng
from engines.hart.actions import Inspect
from tests.hart.build import RULES, C, J, at_pack, pack_and_declare, solo

MATCHES = 500
"""Seeded 4-seat matches; the heuristic's seat rotates with the seed."""


def test_heuristic_is_registered() -> None:
    assert isinstance(strategy("hart", "heuristic"), HartHeuristic)


def test_declaration_and_stake_helpers() -> None:
    assert best_declaration(["jug", "jug", "maracas", "cigar"]) == (4, "jug")
    assert best_declaration(["statue"]) == (1, "jug")
    assert split(["sombrero", "cigar", "cigar"], 3, "sombrero") == (
        ["sombrero"],
        ["cigar", "cigar"],
    )
    assert at_stake(["sombrero", "cigar", "cigar"], 3, "sombrero") == 2 * (7 + 5)
    assert at_stake(["jug", "jug"], 2, "jug") == 0


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_heuristic_answers_are_always_legal(seats: int) -> None:
    for seed in range(4):
        bots: list[Strategy] = [RandomStrategy() for _ in range(seats)]
        bots[seed % seats] = HartHeuristic()
        match = play_local("hart", bots, seed)
        assert match.bad_answers == [], match.bad_answers[:3]


def test_heuristic_self_play_is_legal() -> None:
    match = play_local("hart", [HartHeuristic() for _ in range(4)], 3)
    assert match.bad_answers == []
    assert len(match.record.moves) > 40


def test_heuristic_beats_random_play() -> None:
    wins = 0
    for seed in range(MATCHES):
        seat = seed % 4
        bots: list[Strategy] = [RandomStrategy() for _ in range(4)]
        bots[seat] = HartHeuristic()
        match = play_local("hart", bots, seed)
        assert not [bad for bad in match.bad_answers if bad[1] == seat]
        wins += match.outcome.ranks[seat] == 1
    rate = wins / MATCHES
    print(f"heuristic win rate against 3 random bots: {rate:.3f}")
    assert rate >= 0.35


def test_heuristic_answers_a_described_bribe_space() -> None:
    state = at_pack(4, 0, {1: [C, C, C, J, J]}, {1: 500})
    state = pack_and_declare(state, {1: [C, C, C]}, {1: (3, J)})
    state = solo(state, Inspect(1))
    decision = RULES.decision(state)
    assert decision is not None
    view = RULES.dump_observation(RULES.observe(state, 1))
    turn = make_turn(RULES, decision, 1, 4, view, RULES.legal_actions(state, 1))
    assert turn.legal is None
    answer = HartHeuristic().decide(turn, HashRng(0, "bot"))
    assert answer["type"] == "offer" and 1 <= answer["amount"] <= 500
    RULES.check_answer(state, 1, decision.number, RULES.parse_action(1, answer))
