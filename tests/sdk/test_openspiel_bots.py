"""OpenSpiel's reference bots: MCTS beats random at games of perfect information, the CFR+ policy
beats random at kuhn and leduc poker, over seeded matches in process (outcomes, not timings)."""

from __future__ import annotations

import importlib

import pytest

from arena.sdk import StrategyBot
from arena.sdk.bots.base import RandomStrategy, Strategy, Turn, strategy, strategy_names
from arena.sdk.local import play_local
from engines import HashRng

pytest.importorskip("pyspiel")
bots = importlib.import_module("arena.sdk.bots.openspiel")


def _duel(game: str, mine: Strategy, games: int, options: dict[str, object]) -> list[float]:
    """The bot's returns over `games` two-seat matches against random, seats alternating."""
    out = []
    for seed in range(games):
        seat = seed % 2
        players: list[Strategy] = [RandomStrategy(), RandomStrategy()]
        players[seat] = mine
        match = play_local(game, players, seed, options)
        assert not match.bad_answers, match.bad_answers[:3]
        out.append(match.outcome.scores[seat])
    return out


@pytest.mark.parametrize(
    ("game", "options", "games", "wins"),
    [
        ("openspiel/connect_four", {}, 12, 11),
        ("openspiel/tic_tac_toe", {}, 12, 9),  # the rest are draws: it never loses
        ("openspiel/hex", {"num_rows": 5, "num_cols": 5}, 12, 11),
        ("openspiel/pig", {"winscore": 20}, 30, 20),  # dice: a strong player still loses some
    ],
)
def test_mcts_beats_random(game: str, options: dict[str, object], games: int, wins: int) -> None:
    returns = _duel(game, strategy(game, "mcts"), games, options)
    assert sum(r > 0 for r in returns) >= wins, returns
    if game == "openspiel/tic_tac_toe":
        assert min(returns) >= 0, "mcts lost a game of tic-tac-toe to random play"


@pytest.mark.parametrize(
    ("game", "games", "edge"),
    [("openspiel/kuhn_poker", 3000, 0.08), ("openspiel/leduc_poker", 1000, 0.3)],
)
def test_the_cfr_policy_beats_random_poker(game: str, games: int, edge: float) -> None:
    """Chips won per hand (kuhn's edge over random is about 0.13, leduc's about 0.6)."""
    returns = _duel(game, strategy(game, "cfr"), games, {})
    assert sum(returns) / games > edge, sum(returns) / games


def test_the_cfr_policy_is_close_to_an_equilibrium_of_kuhn_poker() -> None:
    """Kuhn's first seat is worth -1/18 at equilibrium; the solved policy plays it within 0.01."""
    pyspiel = importlib.import_module("pyspiel")
    table = bots.solved_policy("kuhn_poker(players=2)")
    assert len(table) == 12  # 3 cards x 4 betting histories before a seat's decision
    game = pyspiel.load_game("kuhn_poker")
    ids = {"Pass": 0, "Bet": 1}
    policy = pyspiel.TabularPolicy(
        {key: [(ids[label], p) for label, p in row.items()] for key, row in table.items()}
    )
    assert pyspiel.exploitability(game, policy) < 0.01


def test_the_strategies_each_game_offers() -> None:
    assert strategy_names("openspiel/connect_four") == ("random", "mcts")
    assert strategy_names("openspiel/backgammon") == ("random", "mcts")
    assert strategy_names("openspiel/leduc_poker") == ("random", "cfr")
    assert strategy_names("openspiel/goofspiel") == ("random",)  # simultaneous moves
    assert strategy_names("openspiel/hearts") == ("random",)
    assert strategy_names("hart") == ("random", "heuristic")
    with pytest.raises(ValueError, match="known: random, cfr"):
        strategy("openspiel/leduc_poker", "mcts")


def test_a_reference_bot_plays_random_where_its_strategy_does_not_apply() -> None:
    bot = StrategyBot("mcts", seed=1)
    assert isinstance(bot._brain("openspiel/goofspiel"), RandomStrategy)
    assert isinstance(bot._brain("openspiel/othello"), bots.MctsStrategy)
    assert isinstance(StrategyBot("cfr")._brain("hart"), RandomStrategy)


def test_cfr_says_which_games_it_solves() -> None:
    turn = _turn("openspiel/leduc_poker", {"game": "leduc_poker(players=3)"})
    with pytest.raises(ValueError, match="not leduc_poker\\(players=3\\)"):
        bots.CfrStrategy().decide(turn, HashRng(0, "t"))
    with pytest.raises(ValueError, match="perfect information"):
        bots.MctsStrategy().decide(_turn("openspiel/kuhn_poker", {}), HashRng(0, "t"))


def _turn(game: str, view: dict[str, object]) -> Turn:
    return Turn(game, 0, 2, 0, "turn", view, ("Pass",), {"kind": "listed"})


def test_random_play_reads_a_space_too_large_to_list() -> None:
    """Go on 19x19 (362 actions) sends its actions in the space's description, not the listing."""
    options = {"max_game_length": 12}
    match = play_local("openspiel/go", [RandomStrategy(), RandomStrategy()], 0, options)
    assert not match.bad_answers and len(match.record.moves) == 12
