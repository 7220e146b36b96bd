"""Turns, rounds, dealing, keeping, the next sheriff and the end: edge cases 8, 9, 12, 13."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import pytest

from engines import Event, HashRng, Transition
from engines.driver import MatchDriver
from engines.hart import scoring
from engines.hart.actions import Appoint, Keep, Pass
from engines.hart.state import EMPTY, Bag, HartState, Phase
from engines.hart.work import Work
from tests.hart.build import (
    RULES,
    C,
    J,
    M,
    S,
    T,
    X,
    at_pack,
    pack_and_declare,
    solo,
    solo_played,
)


def random_events(seats: int, seed: int, options: dict | None = None) -> list:
    """Every event of one random match, in order: the setup's, then each decision's."""
    driver = MatchDriver(RULES, seats, options or {}, seed)
    out = list(RULES.start(seats, driver.options, HashRng.for_setup(seed)).events)
    state = driver.state
    while (decision := RULES.decision(state)) is not None:
        rng = HashRng(seed, f"test-player:{decision.number}")
        joint = {s: RULES.legal_actions(state, s).sample(rng) for s in decision.seats}
        move = driver.play(joint)
        out.extend(move.events)
        state = move.after
    return out


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_rounds_and_sheriffs(seats: int) -> None:  # edge case 8
    turns = [dict(e.data) for e in random_events(seats, seed=seats) if e.kind == "turn"]
    per_round = 2 * seats if seats == 3 else seats
    assert len(turns) == 3 * per_round
    for rnd in (1, 2, 3):
        sheriffs = Counter(t["sheriff"] for t in turns if t["round"] == rnd)
        assert sheriffs == {s: per_round // seats for s in range(seats)}
        in_round = [t for t in turns if t["round"] == rnd]
        assert [t["turn"] for t in in_round] == list(range(1, per_round + 1))
        for a, b in itertools.pairwise(in_round):
            assert b["sheriff"] == (a["sheriff"] + 1) % seats  # clockwise


def test_first_sheriff_comes_from_the_setup_stream() -> None:
    firsts = {MatchDriver(RULES, 4, {}, seed).state.sheriff for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert MatchDriver(RULES, 4, {}, 7).state.sheriff == MatchDriver(RULES, 4, {}, 7).state.sheriff


def test_setup_deals_five_cards_and_thirty_dollars() -> None:
    state = MatchDriver(RULES, 5, {}, 3).state
    assert [len(p.hand) for p in state.players] == [5] * 5
    assert [p.money for p in state.players] == [30] * 5
    assert len(state.deck) == 139 - 25
    assert all(p.seizure_token and p.extra_control_token for p in state.players)
    assert not any(p.extra_control_token for p in MatchDriver(RULES, 4, {}, 3).state.players)


def final_sale(state: HartState) -> Transition[HartState]:
    """The end-of-game sale applied to `state`, with its events."""
    w = Work(state)
    scoring.final_sale(w)
    return Transition(w.freeze(), tuple(w.events))


def end_of_turn(state: HartState) -> HartState:
    """Pass through the inspection and the tokens."""
    return end_of_turn_events(state)[0]


def end_of_turn_events(state: HartState) -> tuple[HartState, list[Event]]:
    """Pass through the inspection and the tokens: the state after, and the events on the way."""
    events: list[Event] = []
    while state.phase in (Phase.INSPECT, Phase.EXTRA_CONTROL, Phase.SEIZE):
        step = solo_played(state, Pass())
        state = step.state
        events.extend(step.events)
    return state, events


def test_refill_reshuffles_the_discard_pile() -> None:  # edge case 9, H10
    state = at_pack(4, 0, {1: [J] * 5, 2: [M] * 5, 3: [S] * 5})
    pile = list(state.deck)
    state = replace(state, deck=tuple(pile[:4]), discard=Bag.of(pile[4:]))
    state = pack_and_declare(state, {1: [J] * 5, 2: [M] * 5, 3: [S] * 5}, {})
    state, events = end_of_turn_events(state)
    kinds = [e.kind for e in events]
    assert "reshuffle" in kinds
    assert [len(p.hand) for p in state.players] == [5, 5, 5, 5]
    assert state.total_cards() == Bag.full_deck()
    assert len(state.discard) == 0


def test_short_piles_leave_hands_short_and_empty_hands_sit_out() -> None:  # H10
    state = at_pack(4, 0, {1: [J] * 5, 2: [M] * 5, 3: [S] * 5})
    pile = list(state.deck)
    # move the rest of the cards behind seat 0's suitcase, out of the draw and discard piles
    state = state.with_player(0, behind=Bag.of(pile[2:]))
    state = replace(state, deck=tuple(pile[:2]), discard=EMPTY)
    state = pack_and_declare(state, {1: [J] * 5, 2: [M] * 5, 3: [S] * 5}, {})
    state = end_of_turn(state)
    # the new sheriff is seat 1; dealing starts at its left (seat 2) one card at a time
    assert state.sheriff == 1
    assert [len(p.hand) for p in state.players] == [5, 0, 1, 1]
    assert state.traders == (2, 3, 0)
    assert RULES.decision(state).seats == frozenset({0, 2, 3})


def last_turn(money: dict[int, int], sheriff: int, **options: object) -> HartState:
    """The last turn of round 1 with all-jug hands: every trader will sell exactly one jug (+2)."""
    state = at_pack(4, sheriff, {s: [J] * 5 for s in range(4)}, money, options)
    state = replace(state, turn=state.turns_per_round - 1)
    state = pack_and_declare(state, {}, {})
    state = end_of_turn(state)
    while state.phase is Phase.KEEP:
        state = solo(state, Keep(EMPTY))
    return state


def test_poorest_player_picks_the_next_sheriff() -> None:
    state = last_turn({0: 30, 1: 5, 2: 30, 3: 30}, sheriff=3)
    assert state.phase is Phase.APPOINT and state.queue == (1,)
    state = solo(state, Appoint(2))
    assert (state.round, state.turn, state.sheriff, state.phase) == (1, 0, 2, Phase.PACK)


def test_tie_for_poorest_english_rule() -> None:  # edge case 12
    # after selling one jug each: seat 0 has 12, seat 3 has 12, seat 1 (the last sheriff) 12
    state = last_turn({0: 10, 1: 12, 2: 30, 3: 10}, sheriff=1)
    assert [p.money for p in state.players] == [12, 12, 32, 12]
    # clockwise from the last sheriff's left: 2, 3, 0, 1 -> seat 3 is the first tied player
    assert state.phase is Phase.APPOINT and state.queue == (3,)


def test_tie_for_poorest_chinese_rule() -> None:  # edge case 12
    state = last_turn({0: 10, 1: 12, 2: 30, 3: 10}, sheriff=1, next_sheriff_tie="zh")
    assert state.phase is Phase.PACK
    assert (state.round, state.sheriff) == (1, 2)  # left of the last sheriff, no decision


def test_keep_three_cards_per_round_the_rest_sells() -> None:  # H13
    state = at_pack(4, 3, {0: [X, X, T, C, J]})
    state = replace(state, turn=state.turns_per_round - 1, deck=state.deck[1:])
    state = state.with_player(3, behind=Bag.of(at_pack(4, 3, {0: [X, X, T, C, J]}).deck[:1]))
    state = pack_and_declare(state, {0: [X, X, T, C, J]}, {0: (5, J)})
    state = end_of_turn(state)
    assert state.phase is Phase.KEEP and state.queue == (3, 0, 1, 2)  # the sheriff first
    while state.queue[0] != 0:
        state = solo(state, Keep(EMPTY))
    keep_space = RULES.legal_actions(state, 0)
    assert Keep(Bag.of([X, X, T])) in keep_space
    assert Keep(Bag.of([X, X, T, C])) not in keep_space
    before = state.players[0].money
    state = solo(state, Keep(Bag.of([X, X, T])))
    while state.phase is Phase.KEEP:
        state = solo(state, Keep(EMPTY))
    assert state.players[0].under == Bag.of([X, X, T])
    assert state.players[0].money == before + 7 + 2  # the cigar and the jug sell
    assert state.players[0].behind == EMPTY


def test_final_sale_and_shared_win() -> None:  # edge case 13
    state = at_pack(4, 0)
    players = list(state.players)
    players[0] = replace(players[0], money=10, under=Bag.of([X, X]), hand=Bag.of([X] * 5))
    players[1] = replace(players[1], money=34, under=EMPTY, hand=EMPTY)
    players[2] = replace(players[2], money=58, under=EMPTY)
    players[3] = replace(players[3], money=20, under=Bag.of([C] * 5))
    state = final_sale(replace(state, players=tuple(players))).state
    assert state.phase is Phase.OVER
    # 2 statues at 24 = 48; the hand's statues are worth nothing; 4 of 5 cigars sell (cap 4)
    assert [p.money for p in state.players] == [58, 34, 58, 20 + 4 * 14]
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.ranks == (2, 4, 2, 1)
    assert RULES.decision(state) is None


def test_tied_winners_share_rank_one() -> None:  # edge case 13
    state = final_sale(at_pack(3, 0, money={0: 40, 1: 40, 2: 12})).state
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.ranks == (1, 1, 3)
    assert outcome.scores == (40.0, 40.0, 12.0)


def test_a_whole_match_ends_after_three_rounds() -> None:
    events = random_events(4, seed=11)
    kinds = [e.kind for e in events]
    assert kinds.count("round_end") == 3 and kinds[-1] == "game_over"
    assert kinds.count("appoint") + kinds.count("poorest") >= 2


def with_under(seats: int, under: dict[int, list]) -> HartState:
    state = at_pack(seats, 0, money={s: 0 for s in range(seats)})
    for seat, goods in under.items():
        state = state.with_player(seat, under=Bag.of(goods))
    return state


def test_worked_examples_2_to_4_through_the_engine() -> None:
    jugs = final_sale(with_under(4, {0: [J] * 3, 1: [J] * 2, 2: [J]})).state
    assert [p.money for p in jugs.players] == [12, 8, 4, 0]
    tequila = final_sale(with_under(6, {0: [T] * 6, 1: [T] * 4, 2: [T] * 2, 3: [T] * 2})).state
    assert [p.money for p in tequila.players] == [90, 0, 0, 0, 0, 0]
    cigars = final_sale(with_under(4, {0: [C, C], 1: [C], 2: [C], 3: [C]}))
    assert [p.money for p in cigars.state.players] == [28, 9, 9, 9]
    (sale,) = [dict(e.data) for e in cigars.events if e.kind == "final_sale"]
    assert sale == {"good": "cigar", "cap": 4, "held": [2, 1, 1, 1], "incomes": [28, 9, 9, 9]}
