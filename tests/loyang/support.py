"""Helpers for Loyang tests: a rules instance, a chance-free generator and state builders."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypeVar

from engines import HashRng
from engines.loyang import LoyangRules
from engines.loyang.actions import Action
from engines.loyang.board import starting_player
from engines.loyang.cards import NO_CROPS, Counts, Crop
from engines.loyang.state import Field, LoyangState, Phase, Player, Turn
from engines.loyang.work import PlayerWork, Work

T = TypeVar("T")
RULES = LoyangRules()


class FixedRng:
    """A generator without chance: shuffles keep their order, `below` answers 0."""

    def below(self, n: int) -> int:
        return 0

    def roll(self, sides: int = 6, count: int = 1) -> tuple[int, ...]:
        return (1,) * count

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        return tuple(items)

    def choice(self, items: Sequence[T]) -> T:
        return items[0]


def crops(**named: int) -> Counts:
    """Crop counts from keywords: crops(wheat=2, leek=1)."""
    out = list(NO_CROPS)
    for name, n in named.items():
        out[Crop[name.upper()]] = n
    return tuple(out)


def fresh(seats: int = 2, seed: int = 1, **options: Any) -> LoyangState:
    """A new match, waiting for the home-field sowing."""
    return RULES.setup(seats, options, HashRng(seed, "setup"))


def blank(cash: int = 10, **changes: Any) -> Player:
    """A player with no fields but the home field (unsown), the given cash and changes."""
    player = starting_player(("P3a", "P4a", "P5a", "P6a", "P3b", "P4b", "P5b", "P6b"))
    return replace(player, cash=cash, **changes)


def field(field_id: str, crop: str | None = None, count: int = 0, **changes: Any) -> Field:
    """A field: a private one by its id (P3a..P6b), "home", or a common field card (CF01..)."""
    from engines.loyang.board import place, private_field
    from engines.loyang.data import DATA

    if field_id == "home":
        f = Field("home", DATA.home.size, DATA.home.allowed)
    elif field_id.startswith("P"):
        f = private_field(field_id)
    else:
        board = PlayerWork(blank())
        place(board, field_id, None, 1)
        f = board.fields[-1]
    sown = Crop[crop.upper()] if crop else None
    return replace(f, crop=sown, count=count if sown is not None else 0, **changes)


def acting(
    players: Sequence[Player],
    seat: int = 0,
    round_: int = 2,
    seats_after: Sequence[int] | None = None,
    **changes: Any,
) -> LoyangState:
    """A state in the action phase where `seat` is taking its turn, then `seats_after` act."""
    base = fresh(len(players))
    after = [s for s in range(len(players)) if s != seat] if seats_after is None else seats_after
    return replace(
        base,
        phase=Phase.ACTION,
        round=round_,
        players=tuple(players),
        queue=(),
        turns=(Turn(seat),),
        groups=tuple((s,) for s in after),
        **changes,
    )


def act(state: LoyangState, seat: int, wire: dict[str, Any], rng: Any = None) -> LoyangState:
    """Parse and apply one action of `seat` (the decision must be for `seat` alone)."""
    action = RULES.parse_action(seat, wire)
    return RULES.apply(state, {seat: action}, rng or FixedRng())


def legal(state: LoyangState, seat: int) -> list[dict[str, Any]]:
    """The legal actions of `seat` in wire form."""
    return [RULES.dump_action(a) for a in RULES.legal_actions(state, seat).actions]  # type: ignore[misc]


def is_legal(state: LoyangState, seat: int, wire: dict[str, Any]) -> bool:
    """Whether the wire action is legal for `seat` now."""
    action: Action = RULES.parse_action(seat, wire)
    return action in RULES.legal_actions(state, seat)


def run(state: LoyangState, rule: Any, *args: Any) -> LoyangState:
    """Apply one rule function of the working copy (`rule(work, *args)`) to `state`, frozen."""
    work = Work(state)
    rule(work, *args)
    return work.freeze()
