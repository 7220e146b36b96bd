"""Reference bots for OpenSpiel's games: OpenSpiel's own MCTS, and a CFR+ policy for small poker.

Both decide from exactly what a remote bot receives. `mcts` plays the sequential games of perfect
information: a seat's view names the game (`game`) and lists every action so far (`history`),
from which it rebuilds OpenSpiel's exact state and runs `pyspiel.MCTSBot` with random rollouts.
`cfr` plays kuhn_poker (2-3 seats) and leduc_poker (2 seats) by an average policy of CFR+, solved
once per process and game, and looked up by the view's information-state string.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

import pyspiel  # type: ignore[import-not-found, unused-ignore]

from arena.sdk.bots.base import Strategy, Turn
from engines import Json, Rng

PREFIX = "openspiel/"

CFR_ITERATIONS: Mapping[str, int] = {
    "kuhn_poker(players=2)": 200,
    "kuhn_poker(players=3)": 200,
    "leduc_poker(players=2)": 50,
}
"""The games `cfr` solves, with CFR+ iterations: leduc's 50 take about 1.5 s and leave its
exploitability at 0.034 (random play's is 4.7); 3-seat leduc (25,800 information states) would
take a minute."""

MCTS_SIMULATIONS = 1000
"""Simulations per decision: tenths of a second on the curated games, within any clock."""


def mcts_playable(game: str) -> bool:
    """Whether `mcts` plays the OpenSpiel game `game` (a short name: sequential, perfect info)."""
    kind = pyspiel.load_game(game).get_type()
    return bool(
        kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        and kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    )


def strategies_for(game: str) -> tuple[str, ...]:
    """The OpenSpiel strategies beyond random for `openspiel/<game>`."""
    short = game.removeprefix(PREFIX)
    if short in ("kuhn_poker", "leduc_poker"):
        return ("cfr",)
    if short in pyspiel.registered_names() and mcts_playable(short):
        return ("mcts",)
    return ()


def _pick(weights: Mapping[Json, float], rng: Rng) -> Json:
    """A choice drawn with these (float) weights, from integer draws of `rng`."""
    scaled = [(choice, int(weight * 2**30)) for choice, weight in weights.items()]
    if sum(w for _, w in scaled) <= 0:  # nothing weighed: every choice alike
        scaled = [(choice, 1) for choice, _ in scaled]
    draw = rng.below(sum(w for _, w in scaled))
    for choice, weight in scaled:
        if draw < weight:
            return choice
        draw -= weight
    raise AssertionError("unreachable: the draw is below the total")  # pragma: no cover


class MctsStrategy(Strategy):
    """OpenSpiel's MCTS (`pyspiel.MCTSBot`, random rollouts) on the state rebuilt from the view."""

    name: ClassVar[str] = "mcts"

    def __init__(self, simulations: int = MCTS_SIMULATIONS) -> None:
        self.simulations = simulations

    def decide(self, turn: Turn, rng: Rng) -> Json:
        """Rebuild the state from `game` and `history`, search, and name the chosen action."""
        view = turn.view
        if "history" not in view:
            raise ValueError(f"mcts plays games of perfect information, not {turn.game}")
        game = _game(view["game"])
        state = game.new_initial_state()
        for action in view["history"]:
            state.apply_action(action)
        seed = rng.below(2**31)
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, 2.0, self.simulations, 200, True, seed, False)
        action = bot.step(state)
        return str(state.action_to_string(turn.seat, action))


class CfrStrategy(Strategy):
    """An average CFR+ policy of kuhn or two-seat leduc poker, drawn from per decision."""

    name: ClassVar[str] = "cfr"

    def decide(self, turn: Turn, rng: Rng) -> Json:
        """Look the information state up in the solved policy and draw an action from it."""
        game = turn.view["game"]
        if game not in CFR_ITERATIONS:
            raise ValueError(f"cfr solves {', '.join(CFR_ITERATIONS)}; not {game}")
        policy = solved_policy(game)[turn.view["information_state"]]
        legal = set(turn.choices())
        return _pick({label: p for label, p in policy.items() if label in legal}, rng)


@cache
def _game(name: str) -> Any:
    """OpenSpiel's game of this full name, loaded once per process."""
    return pyspiel.load_game(name)


@cache
def solved_policy(name: str) -> dict[str, dict[str, float]]:
    """CFR+'s average policy of game `name`: per information state, action string -> weight."""
    game = _game(name)
    solver = pyspiel.CFRPlusSolver(game)
    for _ in range(CFR_ITERATIONS[name]):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    table: dict[str, dict[str, float]] = {}
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        key = state.information_state_string()
        if key not in table:
            player = state.current_player()
            table[key] = {
                state.action_to_string(player, a): p for a, p in average.get_state_policy(state)
            }
        stack.extend(state.child(a) for a in state.legal_actions())
    return table
