"""Re-deal what a viewer of an OpenSpiel match may not know, for the no-leak check.

OpenSpiel has no generic "resample the hidden state" call, so the moves are replayed node by
node: at each node another seat or chance decided, a few random alternatives are tried and the
first that leaves the viewer's view at that point unchanged is kept (the viewer's own moves are
kept). When no alternative fits, the original move is kept; when even that no longer fits, the
attempt gives up and the state is returned unchanged. A kept prefix always shows the viewer
exactly what the original showed, so the result is a history the viewer cannot tell apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.json_value import Json
from engines.openspiel.chance import sample_outcome
from engines.rng import Rng

Move = tuple[int, ...]
View = Callable[[Any, int | None], dict[str, Json]]

TRIES = 3
"""Random alternatives tried per node before the original move is kept."""


def _alternative(live: Any, move: Move, viewer: int | None, rng: Rng) -> Move | None:
    """A random move at this node that keeps the viewer's own part, or None if it has none."""
    if live.is_chance_node():
        return (sample_outcome(live.chance_outcomes(), rng),)
    if live.is_simultaneous_node():
        out = []
        for player, action in enumerate(move):
            legal = live.legal_actions(player)
            out.append(action if player == viewer or not legal else rng.choice(legal))
        return tuple(out)
    if live.current_player() == viewer:
        return None
    return (rng.choice(live.legal_actions()),)


def _apply(live: Any, move: Move) -> Any | None:
    """A clone of `live` after `move`, or None when the move is not legal there."""
    trial = live.clone()
    try:
        if trial.is_simultaneous_node():
            trial.apply_actions(list(move))
        else:
            if move[0] not in trial.legal_actions():
                return None
            trial.apply_action(move[0])
    except Exception:  # OpenSpiel raises SpielError for a move it refuses
        return None
    return trial


def rescramble(
    game: Any, moves: tuple[Move, ...], viewer: int | None, rng: Rng, view: View
) -> tuple[tuple[Move, ...], Any | None]:
    """Moves the viewer cannot tell from `moves`, and OpenSpiel's state after them (None when
    the attempt gave up)."""
    original = game.new_initial_state()
    wanted = []
    for move in moves:
        if original.is_simultaneous_node():
            original.apply_actions(list(move))
        else:
            original.apply_action(move[0])
        wanted.append(view(original, viewer))
    live = game.new_initial_state()
    out: list[Move] = []
    for move, target in zip(moves, wanted, strict=True):
        chosen = None
        for _ in range(TRIES):
            alternative = _alternative(live, move, viewer, rng)
            if alternative is None:
                break
            trial = _apply(live, alternative)
            if trial is not None and view(trial, viewer) == target:
                chosen = alternative, trial
                break
        if chosen is None:
            trial = _apply(live, move)
            if trial is None or view(trial, viewer) != target:
                return moves, None
            chosen = move, trial
        out.append(chosen[0])
        live = chosen[1]
    return tuple(out), live
