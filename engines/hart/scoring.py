"""The end of the game: kept goods sell at double value under the caps; most money wins."""

from __future__ import annotations

from collections.abc import Sequence

from engines.api import Outcome
from engines.hart.data import CARDS, GOODS, SALE_CAPS
from engines.hart.state import HartState, Phase
from engines.hart.work import Work


def double_sale(holdings: Sequence[int], cap: int, value: int) -> tuple[int, ...]:
    """Income per seat from selling one good at double value under the cap (rulebook end sale).

    The biggest holders sell first, as long as the cap allows; a tied group that does not fit
    shares the proceeds of what is left, each rounded down, and the remainder is lost.
    """
    price = 2 * value
    if sum(holdings) <= cap:
        return tuple(h * price for h in holdings)
    income = [0] * len(holdings)
    left = cap
    for amount in sorted({h for h in holdings if h > 0}, reverse=True):
        if left == 0:
            break
        group = [s for s, h in enumerate(holdings) if h == amount]
        if amount * len(group) <= left:
            for seat in group:
                income[seat] = amount * price
            left -= amount * len(group)
        else:
            for seat in group:
                income[seat] = left * price // len(group)
            left = 0
    return tuple(income)


def final_sale(w: Work) -> None:
    """Sell the goods kept under the suitcases kind by kind (jug first), then the game is over."""
    caps = SALE_CAPS[w.seats]
    for good, cap in zip(GOODS, caps, strict=True):
        held = [p.under.count(good) for p in w.players]
        if not any(held):
            continue
        income = double_sale(held, cap, CARDS[good].value)
        for seat, amount in enumerate(income):
            if amount:
                w.edit(seat).money += amount
        w.emit("final_sale", good=good.value, cap=cap, held=list(held), incomes=list(income))
    w.emit("game_over", money=[p.money for p in w.players])
    w.phase, w.queue = Phase.OVER, ()


def ranking(state: HartState) -> Outcome:
    """Most money wins; equal money shares the rank."""
    money = [p.money for p in state.players]
    return Outcome.from_keys(money, money)
