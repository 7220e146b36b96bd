"""The Loyang bots: the heuristic beats the random bot over 300 seeded 2-seat games."""

from __future__ import annotations

from arena.sdk.bots.base import RandomStrategy, Strategy, strategy
from arena.sdk.bots.loyang import LoyangHeuristic
from arena.sdk.local import play_local

GAMES = 300


def test_the_heuristic_is_registered() -> None:
    assert isinstance(strategy("loyang", "heuristic"), LoyangHeuristic)


def test_the_heuristic_beats_the_random_bot() -> None:
    wins = 0
    for seed in range(GAMES):
        mine = seed % 2  # alternate seats
        bots: list[Strategy] = [RandomStrategy(), RandomStrategy()]
        bots[mine] = LoyangHeuristic()
        match = play_local("loyang", bots, seed)
        assert not match.bad_answers, match.bad_answers[:3]
        ranks = match.outcome.ranks
        wins += ranks[mine] == 1 and ranks[1 - mine] == 2
    rate = wins / GAMES
    print(f"heuristic beat random in {wins}/{GAMES} games ({rate:.1%})")
    assert rate >= 0.6


def test_the_heuristic_plays_every_variant_without_bad_answers() -> None:
    cases = [
        (1, {}),
        (3, {"beginner": True}),
        (4, {"paired": True}),
        (2, {"shop_stock_mode": "strict"}),
    ]
    for seats, options in cases:
        match = play_local("loyang", [LoyangHeuristic() for _ in range(seats)], 11, options)
        assert not match.bad_answers, (options, match.bad_answers[:3])
        assert max(match.outcome.scores) > 1
