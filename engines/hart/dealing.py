"""Dealing: every hand is refilled to five cards before each turn, reshuffling the discard pile."""

from __future__ import annotations

from engines.hart.data import HAND_SIZE, Good
from engines.hart.state import EMPTY, Bag
from engines.hart.work import Work
from engines.rng import Rng


def refill(w: Work, rng: Rng) -> None:
    """Deal one card at a time clockwise from the sheriff's left until every hand holds 5.

    An empty draw pile takes the shuffled discard pile; when both are empty, hands stay short.
    """
    deck = w.deck
    top = 0
    """Cards dealt from the top of `deck` so far."""
    discard = w.discard
    held = [len(p.hand) for p in w.players]
    dealt: list[list[Good]] = [[] for _ in w.players]
    order = w.clockwise((w.sheriff + 1) % w.seats)
    while any(held[s] < HAND_SIZE for s in order):
        for seat in order:
            if held[seat] >= HAND_SIZE:
                continue
            if top == len(deck) and len(discard):
                deck, top = rng.shuffle(list(discard)), 0
                w.emit("reshuffle", count=len(deck))
                discard = EMPTY
            if top == len(deck):
                break
            dealt[seat].append(deck[top])
            top += 1
            held[seat] += 1
        if top == len(deck) and not len(discard):
            break
    for seat, cards in enumerate(dealt):
        if cards:
            p = w.edit(seat)
            p.hand = p.hand + Bag.of(cards)
    w.deck = tuple(deck[top:])
    w.discard = discard
    if any(dealt):
        w.emit("deal", counts=[len(cards) for cards in dealt])
