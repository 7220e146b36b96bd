"""Packing and declaring: traders fill a suitcase from the hand, then announce its contents."""

from __future__ import annotations

from engines.api import Seat
from engines.hart.actions import Declare, Pack
from engines.hart.state import EMPTY, Declaration
from engines.hart.work import Work


def pack(w: Work, actions: dict[Seat, Pack]) -> None:
    """Every trader's chosen cards (1-5) go from hand to suitcase at once, announced by count."""
    for seat in w.traders:
        goods = actions[seat].goods
        p = w.edit(seat)
        p.hand, p.suitcase = p.hand - goods, goods
        w.emit("pack", seat=seat, count=len(goods))


def declare(w: Work, seat: Seat, action: Declare) -> None:
    """One trader announces `count` cards of one legal good (it may be a lie), in turn order."""
    w.edit(seat).declaration = Declaration(action.count, action.good)
    w.emit("declare", seat=seat, count=action.count, good=action.good.value)


def stow(w: Work) -> None:
    """At the turn's end, unopened suitcases go behind their owners; declarations are cleared."""
    stowed = [len(p.suitcase) for p in w.players]
    if any(stowed):
        for seat, count in enumerate(stowed):
            if count:
                stowing = w.edit(seat)
                stowing.suitcase, stowing.behind = EMPTY, stowing.behind + stowing.suitcase
        w.emit("stow", counts=[n for n in stowed])
    for seat, held in enumerate(w.players):
        if held.declaration is not None:
            w.edit(seat).declaration = None
