"""The contract's own machinery, exercised on a toy game; and proof that the suite can fail."""

from __future__ import annotations

import pytest

from engines import (
    GameOver,
    HashRng,
    IllegalAction,
    InvalidAction,
    ListedSpace,
    NotYourDecision,
    Option,
    OptionsError,
    Outcome,
    Record,
    ReplayMismatch,
    StaleDecision,
    UnknownGame,
    get,
)
from engines.driver import MatchDriver
from engines.replay import replay  # the function: `import engines.replay` shadows the lazy name
from tests.engines.conformance import Tally, play_checked
from tests.engines.toy import HighCard, LeakyHighCard


@pytest.mark.parametrize("seats", [2, 3])
def test_toy_passes_the_suite(seats: int) -> None:
    tally = Tally()
    for seed in range(30):
        play_checked(HighCard(), seats, seed, tally=tally)
    assert tally.simultaneous > 0 and tally.scrambles_that_changed_state > 0


def test_suite_catches_a_leak() -> None:
    with pytest.raises(AssertionError, match="depends on secrets"):
        play_checked(LeakyHighCard(), 2, 0)


def test_illegal_and_stale_answers() -> None:
    rules = HighCard()
    state = MatchDriver(rules, 2, {}, 1).state
    hand = state.hands[0]
    not_held = next(c for c in range(1, 13) if c not in hand)
    with pytest.raises(IllegalAction) as info:
        rules.apply(state, {0: not_held, 1: state.hands[1][0]}, HashRng(1, "x"))
    assert info.value.seat == 0 and "not legal for seat 0" in str(info.value)
    with pytest.raises(StaleDecision):
        rules.check_answer(state, 0, 5, hand[0])
    with pytest.raises(NotYourDecision):
        rules.check_answer(state, 2, 0, hand[0])
    with pytest.raises(InvalidAction, match="not valid JSON"):
        rules.parse_wire(0, "{nope")
    with pytest.raises(InvalidAction, match="integer card"):
        rules.parse_wire(0, '"seven"')


def test_game_over_and_replay_mismatch() -> None:
    rules = HighCard()
    record, final = play_checked(rules, 2, 4)
    with pytest.raises(GameOver):
        rules.check_answer(final, 0, record_len(record), 1)
    tampered = Record(**{**record_fields(record), "moves": (*record.moves, {0: 1})})
    with pytest.raises(ReplayMismatch, match="after the match ended"):
        replay(rules, tampered)
    wrong_version = Record(**{**record_fields(record), "rules_version": 99})
    with pytest.raises(ReplayMismatch, match="v99"):
        replay(rules, wrong_version)
    bad_move = Record(**{**record_fields(record), "moves": ({0: 99, 1: 99}, *record.moves[1:])})
    with pytest.raises(ReplayMismatch, match="move 0"):
        replay(rules, bad_move)


def record_len(record: Record) -> int:
    return len(record.moves)


def record_fields(record: Record) -> dict[str, object]:
    return {f: getattr(record, f) for f in Record.__dataclass_fields__}


def test_outcome_ranks_share_ties() -> None:
    assert Outcome.from_keys([5, 9, 5, 1], [5, 9, 5, 1]).ranks == (2, 1, 2, 4)


def test_options_are_checked() -> None:
    opt = Option("strikes", int, 3, "strikes before a forfeit", minimum=1, maximum=9)
    assert opt.check(4) == 4
    with pytest.raises(OptionsError, match="must be int"):
        opt.check("4")
    with pytest.raises(OptionsError, match=">= 1"):
        opt.check(0)
    with pytest.raises(OptionsError, match="must be int"):
        opt.check(True)
    with pytest.raises(OptionsError, match="no option"):
        HighCard().resolve_options({"bogus": 1})
    with pytest.raises(OptionsError, match="2-3 seats"):
        HighCard().check_seats(5)


def test_listed_space() -> None:
    space = ListedSpace((3, 1, 2))
    assert 1 in space and 4 not in space and [1] not in space
    assert space.default() == 3
    assert space.listing(2) is None and list(space.listing(3) or []) == [3, 1, 2]
    with pytest.raises(ValueError):
        ListedSpace(())


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(UnknownGame, match="known games"):
        get("chess")
