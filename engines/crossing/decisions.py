"""What the decisions share: the signatures of a rule's options and answer, and common choices."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from engines.api import ListedSpace, Seat
from engines.crossing.actions import Action, Pass, PickCar, PickContract, PickSpace
from engines.crossing.components import CARS, Board
from engines.crossing.state import CrossingState, Prompt
from engines.crossing.work import Work
from engines.frozen import new_listed

Options = Callable[[CrossingState, Prompt, Seat], ListedSpace[Action]]
"""A decision's legal actions: (state, its prompt, the deciding seat) -> the space."""
Answer = Callable[[Work, Prompt, Action], None]
"""A single-seat decision's effect: (working copy, the prompt answered, the action)."""


pick_space = functools.cache(PickSpace)
"""`PickSpace(space)`, one shared action per space: route and tower choices list them often."""


def listed(actions: Sequence[Action], default: int = 0) -> ListedSpace[Action]:
    """The space of these actions (the first is the default unless told)."""
    return new_listed(ListedSpace, tuple(actions), default)


def pick_cars(rack: Sequence[int]) -> list[Action]:
    """One choice per car type a rack holds, in `CARS` order."""
    return [PickCar(car) for i, car in enumerate(CARS) if rack[i]]


def pick_contracts(board: Board, indices: Sequence[int]) -> list[Action]:
    """One choice per contract index, by id."""
    return [PickContract(board.contracts[i].id) for i in indices]


def unanswered(prompt: Prompt, action: Action) -> None:
    """Nothing happens for a pass (declining an optional effect); any other action is a defect."""
    if not isinstance(action, Pass):
        # the options offered an action no rule answers: an engine defect, never a bot's fault.
        raise AssertionError(f"no rule answers {prompt.label.value} with {action!r}")
