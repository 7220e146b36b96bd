"""The reference bots: legal answers every time, and a heuristic that clearly beats random play."""

from __future__ import annotations

from typing import Any

from arena.sdk.bots import strategy
from arena.sdk.bots.base import RandomStrategy, Turn
from arena.sdk.bots.crossing import CrossingHeuristic
from arena.sdk.local import make_turn, play_local
from engines.crossing.state import Label
from engines.rng import HashRng
from tests.crossing.build import RULES, act, edit, label, roll, turn_of
from tests.crossing.test_edge_cases import neutral
from tests.crossing.winrate import heuristic_win_rate

GAMES = 48
"""500 games take minutes here; `bench/crossing_winrate.py` plays the full 500."""


def test_the_heuristic_beats_three_random_bots() -> None:
    result = heuristic_win_rate(GAMES)
    assert result.bad_answers == 0, "every answer of every bot must be legal"
    assert result.rate >= 0.35, f"won {result.wins} of {result.games}"


def test_heuristic_is_registered_for_crossing() -> None:
    assert isinstance(strategy("crossing", "heuristic"), CrossingHeuristic)


def test_heuristics_against_each_other_answer_legally_at_every_seat_count() -> None:
    for seats in (2, 3, 5, 6):
        bots = [CrossingHeuristic() for _ in range(seats)]
        match = play_local("crossing", bots, seed=seats, options={"round_cap": 30})
        assert match.bad_answers == []
        assert match.final.regular_turns <= 30 * seats


def test_random_bots_finish_a_match() -> None:
    match = play_local("crossing", [RandomStrategy() for _ in range(3)], seed=1)
    assert match.bad_answers == [] and match.outcome is not None


def _turn(state: Any, seat: int) -> Turn:
    decision = RULES.decision(state)
    assert decision is not None and seat in decision.seats
    view = RULES.dump_observation(RULES.observe(state, seat))
    space = RULES.legal_actions(state, seat)
    return make_turn(RULES, decision, seat, len(state.players), view, space)


def _leader_table() -> Any:
    state = neutral(3)
    state = edit(state, 1, contracts=["A1", "B1"], cars={"box": 1}, hand={"railroad_crew": 1})
    state = edit(state, 2, contracts=["C1"], cars={"box": 1})
    return state


def test_the_heuristic_plays_stop_against_the_leader_only() -> None:
    bot = CrossingHeuristic()
    state = edit(_leader_table(), 0, hand={"stop": 1})
    on_leader = turn_of(state, 1)
    assert bot.decide(_turn(on_leader, 0), HashRng(0, "t")) == {"type": "stop"}
    on_other = turn_of(edit(state, 2, hand={"railroad_crew": 1}), 2)
    assert bot.decide(_turn(on_other, 0), HashRng(0, "t")) == {"type": "pass"}


def test_the_heuristic_sends_its_villain_at_the_leader() -> None:
    state = turn_of(edit(_leader_table(), 0, position="O10", hand={"villain": 1}), 0)
    choice = CrossingHeuristic().decide(_turn(state, 0), HashRng(0, "t"))
    assert isinstance(choice, dict) and choice["type"] == "roll" and choice["villain"] == 1


def test_the_heuristic_trades_when_it_can() -> None:
    state = edit(neutral(), 0, position="O1", cars={"box": 2}, hand={"railroad_crew": 1})
    state = act(state, roll("slow"), dice=(1,))
    assert label(state) is Label.TRADE
    choice = CrossingHeuristic().decide(_turn(state, 0), HashRng(0, "t"))
    assert choice == {"type": "contract", "contract": "A1"}
