"""The seizure: once per game a sheriff takes the mismatching cards of an unchecked suitcase."""

from __future__ import annotations

from engines.api import Seat
from engines.hart.inspection import split_by_declaration
from engines.hart.state import EMPTY
from engines.hart.work import Work


def seize(w: Work, target: Seat) -> None:
    """Matching cards stay with their owner; mismatching ones go behind the sheriff's suitcase.

    No bribe, no compensation, no penalty. The public learns how many cards moved; only the
    sheriff and the seized seat see which.
    """
    sheriff = w.sheriff
    p = w.edit(target)
    decl, suitcase = p.declaration, p.suitcase
    assert decl is not None
    returned, taken = split_by_declaration(suitcase, decl.count, decl.good)
    p.suitcase, p.behind = EMPTY, p.behind + returned
    s = w.edit(sheriff)
    s.seizure_token, s.behind = False, s.behind + taken
    w.emit(
        "seize", sheriff=sheriff, seat=target, taken_count=len(taken), returned_count=len(returned)
    )
    w.emit(
        "seized",
        (sheriff, target),
        sheriff=sheriff,
        seat=target,
        goods=suitcase.names(),
        taken=taken.names(),
        returned=returned.names(),
    )


def keep_token(w: Work) -> None:
    """The sheriff does not use the seizure token this turn."""
    w.emit("pass", seat=w.sheriff, step="seizure")
