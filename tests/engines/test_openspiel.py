"""OpenSpiel's games through the adapter: the conformance suite over the curated list, exact
chance, views, the registry, and replays against OpenSpiel's own `apply_action` loop."""

from __future__ import annotations

import importlib
import sys
from fractions import Fraction
from typing import Any

import pytest

import engines
from engines import HashRng, OptionsError, ScriptedRng, UnknownGame
from engines.driver import MatchDriver
from engines.openspiel import CURATED, MISSING, curated_names
from tests.engines.conformance import Tally, play_checked, random_joint

pyspiel = pytest.importorskip("pyspiel")
adapter = importlib.import_module("engines.openspiel.adapter")
sample_outcome = importlib.import_module("engines.openspiel.chance").sample_outcome
load_game = adapter.load_game

SEEDS = 100
"""Seeds per (game, seat count): far fewer than the seed games' 200, to bound `make test`."""
DEEP_SEEDS = 10
"""Of those, the seeds that get every check per decision (views, scramble, mutation)."""
FEWER_DEEP_SEEDS = {"openspiel/hearts": 2, "openspiel/dou_dizhu": 3}
"""Games whose every-check matches are long (a 52-card deal dealt card by card, re-dealt at every
decision of the no-leak check): fewer deep seeds, the same 100 seeds in all."""


def _cases() -> list[Any]:
    return [
        pytest.param(name, seats, id=f"{name}-{seats}")
        for name in curated_names()
        for seats in engines.get(name).seat_counts
    ]


@pytest.mark.parametrize(("game", "seats"), _cases())
def test_conformance(game: str, seats: int) -> None:
    rules = engines.get(game)
    tally = Tally()
    finals = []
    deep_seeds = FEWER_DEEP_SEEDS.get(game, DEEP_SEEDS)
    for seed in range(SEEDS):
        full = seed == deep_seeds  # one seed plays the game's full default size
        options = {} if full else dict(rules.conformance_options)
        record, final = play_checked(
            rules, seats, seed, options, deep=seed < deep_seeds, tally=tally
        )
        finals.append(rules.outcome(final))
        if seed < 2:
            again, final_again = play_checked(rules, seats, seed, options, deep=False)
            assert again == record and final_again == final
    assert tally.decisions >= SEEDS
    if adapter.is_perfect(final.live):
        assert tally.scrambles_that_changed_state == 0, "a perfect-information game hid something"
    elif tally.decisions > SEEDS:  # a one-shot game (blotto) has nothing to hide yet
        assert tally.scrambles_that_changed_state > 0, "scramble() never hid anything"
    if game != "openspiel/blotto":  # one simultaneous allocation: often a draw
        assert len({o.ranks for o in finals if o is not None}) > 1, "every seed gave the same ranks"


def _driver(game: str, seats: int, seed: int, options: dict[str, Any] | None = None) -> Any:
    rules = engines.get(game)
    return MatchDriver(rules, seats, rules.resolve_options(options or {}), seed)


def _play_out(driver: Any, seed: int) -> None:
    while driver.decision is not None:
        driver.play(random_joint(driver, seed, driver.number))


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize(
    "game", ["openspiel/leduc_poker", "openspiel/liars_dice", "openspiel/goofspiel"]
)
def test_seed_and_actions_replay_through_openspiels_own_loop(game: str, seed: int) -> None:
    """Chance drawn from the seed by exact integer arithmetic, the record's action strings mapped
    to ids, applied with OpenSpiel's `apply_action(s)`: the same states and the same returns."""
    driver = _driver(game, 2, seed, {"num_cards": 5} if "goofspiel" in game else None)
    views = []
    while driver.decision is not None:
        views.append({seat: driver.view(seat) for seat in range(2)})
        driver.play(random_joint(driver, seed, driver.number))
    record = driver.record()

    game_obj = pyspiel.load_game(driver.state.game)
    state = game_obj.new_initial_state()

    def chance(rng: HashRng) -> None:
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            fractions = [Fraction(p) for _, p in outcomes]
            scale = max(f.denominator for f in fractions)
            weights = [int(f * scale) for f in fractions]
            draw = rng.below(sum(weights))
            for (action, _), weight in zip(outcomes, weights, strict=True):
                if draw < weight:
                    state.apply_action(action)
                    break
                draw -= weight

    chance(HashRng.for_setup(seed))
    for number, move in enumerate(record.moves):
        for seat in range(2):
            assert state.information_state_string(seat) == views[number][seat]["information_state"]
        if state.is_simultaneous_node():
            state.apply_actions([_id(state, p, move[p]) for p in range(2)])
        else:
            player = state.current_player()
            assert set(move) == {player}
            state.apply_action(_id(state, player, move[player]))
        chance(HashRng.for_decision(seed, number))
    assert state.is_terminal()
    assert state.history() == driver.state.live.history()
    assert list(state.returns()) == list(driver.outcome().scores)


def _id(state: Any, player: int, label: Any) -> int:
    ids = [a for a in state.legal_actions(player) if state.action_to_string(player, a) == label]
    assert len(ids) == 1, f"{label!r} names {len(ids)} legal actions"
    return ids[0]


def test_chance_is_sampled_exactly_from_openspiels_probabilities() -> None:
    outcomes = [(7, 0.25), (9, 0.75)]  # exact binary fractions: four equal slots
    assert [sample_outcome(outcomes, ScriptedRng([v])) for v in range(4)] == [7, 9, 9, 9]
    with pytest.raises(ValueError, match="outside"):
        sample_outcome(outcomes, ScriptedRng([4]))
    third = [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
    counts = [0, 0, 0]
    for n in range(3000):
        counts[sample_outcome(third, HashRng(n, "t"))] += 1
    assert all(900 < c < 1100 for c in counts), counts


def test_a_seat_sees_openspiels_information_state_and_nothing_else() -> None:
    driver = _driver("openspiel/kuhn_poker", 2, 5)
    live = driver.state.live
    for seat in range(2):
        view = driver.rules.observe(driver.state, seat)
        assert view == {
            "seat": seat,
            "game": "kuhn_poker(players=2)",
            "information_state": live.information_state_string(seat),
            "tensor": list(live.information_state_tensor(seat)),
        }


def test_a_seat_of_a_perfect_information_game_sees_the_history_that_rebuilds_the_state() -> None:
    driver = _driver("openspiel/pig", 2, 4, {"winscore": 20})
    for number in range(6):
        driver.play(random_joint(driver, 4, number))
    view = driver.rules.observe(driver.state, 1)
    assert view["game"] == "pig(players=2,winscore=20)" and "history" in view
    rebuilt = pyspiel.load_game(view["game"]).new_initial_state()
    for action in view["history"]:
        rebuilt.apply_action(action)
    assert str(rebuilt) == str(driver.state.live) and rebuilt.history() == view["history"]
    assert "history" not in driver.rules.observe(_driver("openspiel/leduc_poker", 2, 4).state, 0)


def test_the_public_view_is_empty_until_the_end_unless_the_game_is_of_perfect_information() -> None:
    poker = _driver("openspiel/leduc_poker", 2, 3)
    assert poker.rules.observe(poker.state, None) == {}
    _play_out(poker, 3)
    final = poker.rules.observe(poker.state, None)
    assert final["final"] == str(poker.state.live) and len(final["returns"]) == 2
    board = _driver("openspiel/tic_tac_toe", 2, 3)
    board.play(random_joint(board, 3, 0))
    assert board.rules.observe(board.state, None) == {
        "observation": board.state.live.observation_string(0)
    }
    secret = _driver("openspiel/goofspiel", 2, 1, {"imp_info": True, "num_cards": 4})
    assert secret.rules.observe(secret.state, None) == {}, "options that hide bids hide them"


def test_simultaneous_nodes_are_one_decision_of_every_seat() -> None:
    driver = _driver("openspiel/goofspiel", 3, 0, {"num_cards": 4})
    assert driver.decision.seats == {0, 1, 2} and driver.decision.label == "simultaneous"
    assert list(driver.space(1).listing()) == [
        "[P1]Bid: 1",
        "[P1]Bid: 2",
        "[P1]Bid: 3",
        "[P1]Bid: 4",
    ]


def test_a_space_too_large_to_list_still_names_every_action_for_bots() -> None:
    """Go on 19x19 offers 362 actions, above the listing limit: the description lists them (bots
    play them: tests/sdk/test_openspiel_bots.py, tests/referee/test_openspiel_wire.py)."""
    options = {"max_game_length": 12}  # the full board, a short match
    driver = _driver("openspiel/go", 2, 0, options)
    space = driver.space(0)
    assert space.listing() is None and len(space.listing(limit=1000) or []) == 362
    assert space.describe() == {"kind": "mixed", "actions": list(space.listing(1000)), "ranges": []}


def test_actions_are_openspiels_strings_and_junk_is_refused() -> None:
    rules = engines.get("openspiel/kuhn_poker")
    driver = _driver("openspiel/kuhn_poker", 2, 0)
    assert list(driver.space(0).listing()) == ["Pass", "Bet"]
    for junk in [3, None, "", "x" * 500, ["Pass"]]:
        with pytest.raises(engines.InvalidAction):
            rules.parse_action(0, junk)
    with pytest.raises(engines.IllegalAction):
        driver.answer(0, 0, "Fold")


def test_options_are_openspiels_parameters() -> None:
    rules = engines.get("openspiel/leduc_poker")
    assert "players" not in {o.name for o in rules.options_schema}
    with pytest.raises(OptionsError, match="no option"):
        rules.resolve_options({"colour": 1})
    driver = _driver("openspiel/connect_four", 2, 0, {"columns": 5, "rows": 4})
    assert driver.state.game == "connect_four(columns=5,rows=4)" or "columns=5" in driver.state.game
    assert len(driver.space(0).listing()) == 5


def test_the_curated_list_has_hidden_information_and_simultaneous_games() -> None:
    """The issue's bar, counted from OpenSpiel's own declarations of each game."""
    kinds = [pyspiel.load_game(name).get_type() for name in CURATED]
    info = pyspiel.GameType.Information
    hidden = [k for k in kinds if k.information == info.IMPERFECT_INFORMATION]
    simultaneous = [k for k in kinds if k.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS]
    assert len(kinds) >= 20 and len(hidden) >= 8 and len(simultaneous) >= 3


def test_options_at_their_default_are_left_out_of_openspiels_game_string() -> None:
    """Go's max_game_length=0 means "derive it" only when absent: given, it ended every match
    after its first move."""
    driver = _driver("openspiel/go", 2, 0, {"board_size": 5})
    assert driver.state.game == "go(board_size=5)"
    assert load_game(driver.state.game).max_game_length() > 25
    for number in range(4):
        driver.play(random_joint(driver, 0, number))
    assert driver.decision is not None


def test_a_game_off_the_curated_list_needs_the_unchecked_option() -> None:
    rules = engines.get("openspiel/checkers")
    assert "unchecked" in rules.title
    with pytest.raises(OptionsError, match="unchecked=true"):
        MatchDriver(rules, 2, rules.resolve_options({}), 0)
    MatchDriver(rules, 2, rules.resolve_options({"unchecked": True}), 0)
    with pytest.raises(UnknownGame, match="no game 'nope'"):
        engines.get("openspiel/nope")


def test_every_curated_game_is_in_the_list_and_the_list_is_known_to_the_registry() -> None:
    assert engines.registry.openspiel_names() == tuple(sorted(f"openspiel/{n}" for n in CURATED))
    assert not set(curated_names()) & set(engines.names()), "the seed games' suites walk names()"


def test_without_the_wheel_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    openspiel = importlib.import_module("engines.openspiel")
    monkeypatch.setattr(openspiel, "_rules", {})
    monkeypatch.setitem(sys.modules, "engines.openspiel.adapter", None)  # import now fails
    with pytest.raises(UnknownGame) as caught:
        engines.get("openspiel/kuhn_poker")
    assert str(caught.value) == f"openspiel/kuhn_poker: {MISSING}"
    assert "\n" not in str(caught.value)
