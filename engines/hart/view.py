"""What each seat may know: its view, the public view, and re-dealing the unknown (scramble)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from engines.api import Json, Seat
from engines.hart.data import GOODS, NAMES, ROUNDS, SALE_CAPS
from engines.hart.legal import acting
from engines.hart.state import Bag, HartState, Player
from engines.rng import Rng

T = TypeVar("T")


def _player(p: Player, seat: Seat) -> dict[str, Json]:
    decl = p.declaration
    return {
        "seat": seat,
        "money": p.money,
        "hand": len(p.hand),
        "suitcase": len(p.suitcase),
        "declaration": None if decl is None else {"count": decl.count, "good": decl.good.value},
        "behind": len(p.behind),
        "under": len(p.under),
        "seizure_token": p.seizure_token,
        "extra_control_token": p.extra_control_token,
    }


def observe(state: HartState, viewer: Seat | None) -> dict[str, Json]:
    """The view of `viewer` in its wire form (documented in `engines.hart.wire`), built fresh.

    Everything public, plus the viewer's own cards; the public view (viewer None) has no cards.
    The events are not part of it: the match driver adds them.
    """
    config = state.config
    bribe: Json = None
    talk = state.negotiation
    if talk is not None:
        bribe = {
            "seat": talk.seat,
            "sheriff": state.sheriff,
            "control": talk.control.value,
            "offers": [{"seat": s, "amount": a} for s, a in talk.offers],
            "trader_offers_left": config.max_offers - talk.count_by(talk.seat),
            "sheriff_offers_left": config.max_offers - talk.count_by(state.sheriff),
        }
    me: Json = None
    if viewer is not None:
        own = state.players[viewer]
        me = {
            "hand": own.hand.names(),
            "suitcase": own.suitcase.names(),
            "behind": own.behind.names(),
            "under": own.under.names(),
        }
    return {
        "viewer": viewer,
        "phase": state.phase.value,
        "round": state.round + 1,
        "rounds": ROUNDS,
        "turn": state.turn + 1,
        "turns_per_round": state.turns_per_round,
        "sheriff": state.sheriff,
        "to_act": list(acting(state)),
        "traders": list(state.traders),
        "selected": list(state.selected),
        "deck": len(state.deck),
        "discard": dict(zip(NAMES, state.discard.counts, strict=True)),
        "sale_caps": dict(zip(NAMES, SALE_CAPS[state.seats], strict=True)),
        "options": {
            "strict_count": config.strict_count,
            "next_sheriff_tie": config.tie_rule.value,
            "max_offers": config.max_offers,
        },
        "players": [_player(p, seat) for seat, p in enumerate(state.players)],
        "bribe": bribe,
        "me": me,
    }


def scramble(state: HartState, viewer: Seat | None, rng: Rng) -> HartState:
    """Re-deal every card `viewer` cannot see (other hands, suitcases, piles; the deck order).

    Sizes stay as they were, so every public count is kept. Past events are not re-dealt: they
    are what the viewer saw, and the match driver keeps them outside the state.
    """
    others = [s for s in range(state.seats) if s != viewer]
    hidden = Bag.of(state.deck)
    for seat in others:
        p = state.players[seat]
        hidden = hidden + p.hand + p.suitcase + p.behind + p.under
    pool = shuffle([k for k, n in enumerate(hidden.counts) for _ in range(n)], rng)
    at = 0

    def take(size: int) -> Bag:
        nonlocal at
        part = pool[at : at + size]
        at += size
        return Bag(tuple(part.count(k) for k in range(len(GOODS))))

    players = list(state.players)
    for seat in others:
        p = players[seat]
        players[seat] = replace(
            p,
            hand=take(len(p.hand)),
            suitcase=take(len(p.suitcase)),
            behind=take(len(p.behind)),
            under=take(len(p.under)),
        )
    deck = tuple(GOODS[k] for k in pool[at:])
    return replace(state, players=tuple(players), deck=deck)


def shuffle(items: Sequence[T], rng: Rng) -> list[T]:
    """A uniform Fisher-Yates shuffle drawing several swap indices from one `below` call.

    The mixed-radix digits of one uniform draw below n(n-1)...(n-k+1) are k uniform, independent
    swap indices, so this is exactly as uniform as one draw per swap, at a fraction of the cost.
    """
    out = list(items)
    i = len(out) - 1
    while i > 0:
        radix: list[int] = []
        span = 1
        while i - len(radix) > 0 and span < 1 << 60:
            radix.append(i - len(radix) + 1)
            span *= radix[-1]
        draw = rng.below(span)
        for size in radix:
            draw, j = divmod(draw, size)
            out[i], out[j] = out[j], out[i]
            i -= 1
    return out
