"""The end of a round: keeping up to three cards, selling the rest, and the next first sheriff."""

from __future__ import annotations

from engines.api import Seat
from engines.hart.actions import Appoint, Keep
from engines.hart.state import EMPTY, TieRule
from engines.hart.work import Work


def keepers(w: Work) -> tuple[Seat, ...]:
    """The seats with goods behind their suitcase, clockwise from the last sheriff: they choose
    what to keep, one after the other."""
    return tuple(s for s in w.clockwise(w.sheriff) if len(w.player(s).behind))


def keep(w: Work, seat: Seat, action: Keep) -> None:
    """One player puts up to 3 cards from behind the suitcase under it, announced by count."""
    p = w.edit(seat)
    p.behind, p.under = p.behind - action.goods, p.under + action.goods
    w.emit("keep", seat=seat, count=len(action.goods))


def sell(w: Work) -> None:
    """Everything still behind the suitcases sells at printed value (the goods are shown)."""
    for seat in range(w.seats):
        behind = w.player(seat).behind
        if len(behind):
            income = behind.value()
            p = w.edit(seat)
            p.money, p.behind = p.money + income, EMPTY
            w.discard = w.discard + behind
            w.emit("sell", seat=seat, goods=behind.names(), income=income)
    w.emit("round_end", round=w.round + 1, money=[p.money for p in w.players])


def poorest(w: Work) -> Seat | None:
    """The poorest player, who names the next first sheriff; None when the tie rule (H12, "zh")
    makes the seat left of the last sheriff start instead.

    Ties: the tied player first clockwise from the last sheriff picks ("en").
    """
    last = w.last_sheriff
    assert last is not None
    least = min(p.money for p in w.players)
    tied = [s for s in w.clockwise((last + 1) % w.seats) if w.player(s).money == least]
    if len(tied) > 1 and w.config.tie_rule is TieRule.ZH:
        w.emit("poorest", seats=[s for s in sorted(tied)], chooser=None)
        return None
    w.emit("poorest", seats=[s for s in sorted(tied)], chooser=tied[0])
    return tied[0]


def appoint(w: Work, seat: Seat, action: Appoint) -> None:
    """The poorest player names anyone as the next round's first sheriff."""
    w.emit("appoint", seat=seat, sheriff=action.seat)
