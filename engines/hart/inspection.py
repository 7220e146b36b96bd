"""Inspection, bribes and extra control: "Open up!", the negotiation, and opening a suitcase.

The sheriff inspects one trader (or nobody); the two may bargain a bribe that keeps the suitcase
shut, else it is opened and judged against the declaration. With 5-6 seats each sheriff may once
per game run an extra control on another trader, with its own negotiation. What comes next (the
extra control, the seizure, the turn's end) is `turns.after_check`.
"""

from __future__ import annotations

from engines.api import Seat
from engines.hart.actions import Accept, Offer, Open
from engines.hart.data import Good
from engines.hart.members import BRIBE, CONTROL_EXTRA_CONTROL
from engines.hart.state import EMPTY, Bag, Control, Declaration, HartState, Negotiation
from engines.hart.work import PlayerWork, Work


def inspect_nobody(w: Work, control: Control) -> None:
    """The sheriff lets every suitcase pass (or does not use the extra control token)."""
    w.emit("pass", seat=w.sheriff, step=control.value)


def inspect(w: Work, target: Seat, control: Control) -> None:
    """ "Open up!": the sheriff picks `target`; the negotiation starts (the extra control spends
    the sheriff's token). A trader without money has nothing to offer: its suitcase opens."""
    if control is CONTROL_EXTRA_CONTROL:
        w.edit(w.sheriff).extra_control_token = False
    w.emit("inspect", sheriff=w.sheriff, seat=target, control=control.value)
    w.selected = (*w.selected, target)
    w.negotiation = Negotiation(target, control)
    w.phase = BRIBE
    if w.player(target).money == 0:
        open_suitcase(w, target)


def bargain(w: Work, seat: Seat, action: Offer | Accept | Open) -> bool:
    """One move of a bribe negotiation; True when it is over (a bribe paid or the case opened)."""
    talk = w.negotiation
    assert talk is not None
    if isinstance(action, Offer):
        w.emit("offer", seat=seat, amount=action.amount)
        w.negotiation = Negotiation(talk.seat, talk.control, (*talk.offers, (seat, action.amount)))
        return False
    if isinstance(action, Open):
        w.emit("no_deal", seat=seat)
        open_suitcase(w, talk.seat)
        return True
    standing = talk.last()
    assert standing is not None
    pay_bribe(w, talk.seat, standing[1])
    return True


def pay_bribe(w: Work, trader: Seat, amount: int) -> None:
    """An accepted proposal: the trader pays the sheriff and the suitcase stays shut."""
    w.edit(trader).money -= amount
    w.edit(w.sheriff).money += amount
    w.emit("bribe", seat=trader, sheriff=w.sheriff, amount=amount)
    w.negotiation = None


def split_by_declaration(suitcase: Bag, count: int, good: Good) -> tuple[Bag, Bag]:
    """(matching, mismatching): cards of the declared kind up to the declared count match."""
    held = suitcase.count(good)
    matching = Bag.of([good] * min(held, count))
    return matching, suitcase - matching


def compensation(kept: Bag, suitcase: Bag, decl: Declaration, strict_count: bool) -> int:
    """An honest suitcase earns the printed compensation of its cards (H2: `strict_count` pays
    only when the suitcase also holds exactly the declared count)."""
    exact = len(suitcase) == decl.count
    return kept.penalty() if exact or not strict_count else 0


def pay_penalty(p: PlayerWork, smuggled: Bag) -> tuple[int, int]:
    """The printed penalty of every mismatching card goes to the bank: (due, paid).

    H4: a trader who cannot pay in full pays all its money; the rest is forgiven."""
    due = smuggled.penalty()
    paid = min(due, p.money)
    p.money -= paid
    return due, paid


def open_suitcase(w: Work, seat: Seat) -> None:
    """Lay the suitcase out: matching cards go behind it, the rest is discarded; compensation
    if every card matches, else the penalty."""
    p = w.edit(seat)
    decl, suitcase = p.declaration, p.suitcase
    assert decl is not None
    kept, smuggled = split_by_declaration(suitcase, decl.count, decl.good)
    paid_out = due = paid = 0
    if not len(smuggled):
        paid_out = compensation(kept, suitcase, decl, w.config.strict_count)
        p.money += paid_out
    else:
        due, paid = pay_penalty(p, smuggled)
    p.suitcase = EMPTY
    p.behind = p.behind + kept
    w.discard = w.discard + smuggled
    w.negotiation = None
    w.emit(
        "open",
        seat=seat,
        sheriff=w.sheriff,
        goods=suitcase.names(),
        declared_count=decl.count,
        declared_good=decl.good.value,
        kept=kept.names(),
        discarded=smuggled.names(),
        compensation=paid_out,
        penalty_due=due,
        penalty_paid=paid,
    )


def unchecked(state: HartState | Work) -> tuple[Seat, ...]:
    """Traders with a suitcase who were not selected this turn (extra control, seizure)."""
    return tuple(s for s in state.traders if s not in state.selected)
