"""Per-seat views of a Loyang state (see `wire` for the keys) and the re-deal of hidden cards."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TypeVar

from engines.api import Json, Seat
from engines.loyang import board
from engines.loyang.board import K
from engines.loyang.cards import (
    CROP_NAMES,
    CasualDef,
    Counts,
    Crop,
    FieldDef,
    HelperDef,
    RegularDef,
    StallDef,
)
from engines.loyang.data import DATA
from engines.loyang.state import Dummy, Field, LoyangState, Phase, Player, Turn
from engines.rng import Rng

T = TypeVar("T")


def _names(crops: Iterable[Crop]) -> list[Json]:
    return [c.wire for c in crops]


def counts(values: Counts) -> dict[str, Json]:
    """Crop counts as {"wheat": 2, ...}, zero counts left out."""
    return {CROP_NAMES[i]: n for i, n in enumerate(values) if n}


def _card_json(card_id: str) -> dict[str, Json]:
    d = DATA.cards[card_id]
    out: dict[str, Json] = {"id": card_id, "kind": d.kind.value}
    out.update(_definition(card_id))
    if isinstance(d, RegularDef):
        out["blue_dot"] = d.blue_dot
    return out


def _definition(card_id: str) -> dict[str, Json]:
    d = DATA.cards[card_id]
    if isinstance(d, HelperDef):
        return {
            "name": d.name,
            "lantern": d.lantern,
            "effect": d.effect.kind.value,
            "amount": d.effect.amount,
            "crops": _names(d.effect.crops),
        }
    if isinstance(d, StallDef):
        return {"offers": counts(d.stock), "cost": counts(d.cost)}
    if isinstance(d, RegularDef):
        return {"crops": _names(d.crops), "pays": list[Json](d.rows)}
    if isinstance(d, CasualDef):
        return {"crops": _names(d.crops), "payout": d.payout}
    assert isinstance(d, FieldDef)
    return {"size": d.size, "allowed": _names(sorted(d.allowed))}


CARD_JSON: dict[str, dict[str, Json]] = {c: _card_json(c) for c in DATA.cards}
"""The static description of every action card, as shown in views (shared, read-only)."""
_DEFINITION: dict[str, dict[str, Json]] = {c: _definition(c) for c in DATA.cards}
PRICES: dict[str, Json] = {"buy": counts(DATA.buy), "sell": counts(DATA.sell)}


def card(card_id: str | None) -> Json:
    """A card's description, or None."""
    return None if card_id is None else CARD_JSON[card_id]


def _entry(card_id: str, under: str | None, **extra: Json) -> dict[str, Json]:
    """A placed card: its id, its definition, its state, and the card behind it if any."""
    out: dict[str, Json] = {"id": card_id, **_DEFINITION[card_id], **extra}
    if under is not None:
        out["under"] = CARD_JSON[under]
    return out


def _field(f: Field) -> Json:
    out: dict[str, Json] = {
        "id": f.id,
        "size": f.size,
        "crop": None if f.crop is None else f.crop.wire,
        "count": f.count,
    }
    if f.crop is None:
        out["allowed"] = _ALLOWED.get(f.allowed) or _names(sorted(f.allowed))
    if f.under is not None:
        out["under"] = CARD_JSON[f.under]
    return out


_ALLOWED: dict[frozenset[Crop], list[Json]] = {
    f.allowed: _names(sorted(f.allowed))
    for f in (
        DATA.home,
        *DATA.private,
        *(d for d in DATA.cards.values() if isinstance(d, FieldDef)),
    )
}


def _stall(card_id: str, under: str | None, goods: Json) -> dict[str, Json]:
    out: dict[str, Json] = {"id": card_id, "cost": _DEFINITION[card_id]["cost"], "goods": goods}
    if under is not None:
        out["under"] = CARD_JSON[under]
    return out


def _cards(
    holder: Player | Dummy, round_: int, paying: Callable[[str], dict[str, Json]] | None = None
) -> dict[str, Json]:
    return {
        "stalls": [_stall(s.card, s.under, counts(s.goods)) for s in holder.stalls],
        "regulars": [
            _entry(
                r.card,
                r.under,
                rows=r.rows,
                good=r.good,
                start=r.start,
                delivered=r.times if r.last == round_ else 0,
            )
            for r in holder.regulars
        ],
        "casuals": [
            _entry(c.card, c.under, **paying(c.card)) if paying else _entry(c.card, c.under)
            for c in holder.casuals
        ],
    }


# Memoized: a pure function of a frozen player. Every viewer of a decision sees the same boards
# and building them is most of a view's cost; the conformance no-leak check (every viewer, each
# view twice) went from 6.6 s to 4.3 s CPU for 3 four-seat matches. Callers must not mutate it.
@functools.lru_cache(maxsize=64)
def player_view(player: Player, round_: int, strict: bool) -> dict[str, Json]:
    """One player's public board."""
    out: dict[str, Json] = {
        "cash": player.cash,
        "loans": player.loans,
        "position": player.position,
        "final_position": board.final_position(player),
        "storehouse_capacity": board.capacity(player),
        "due": player.due,
        "cart": counts(player.cart),
        "storehouse": counts(player.store),
        "fields": [_field(f) for f in player.fields],
        "private_stack": len(player.stack),
        "hand_size": len(player.hand),
        "helpers": [_entry(h.card, h.under) for h in player.helpers],
        "pair_price": board.pair_price(player),
    }
    if strict:
        out["shop"] = counts(player.shop)
    out.update(_cards(player, round_, lambda c: {"pays_now": board.casual_payout(player, c)}))
    return out


def observe(state: LoyangState, viewer: Seat | None) -> dict[str, Json]:
    """What `viewer` may know: everything public plus its own hand (None: spectators)."""
    solo = state.config.solo
    cols = K.solo_grid_columns
    view: dict[str, Json] = {
        "round": state.round,
        "phase": state.phase.value,
        "seat": viewer,
        "start_player": state.start,
        "second_player": state.second,
        "card_turn": state.current if state.phase is Phase.CARD and not solo else None,
        "partners": list(state.partners) if state.partners else None,
        "deck": len(state.deck),
        "discard": list(state.discard[state.face_down :]),
        "discard_face_down": state.face_down,
        "courtyard": [CARD_JSON[c] for c in state.courtyard],
        "hand": None if viewer is None else [CARD_JSON[c] for c in state.players[viewer].hand],
        "grid": [
            [card(c) for c in state.grid[r * cols : (r + 1) * cols]]
            for r in range(len(state.grid) // cols)
        ]
        if solo
        else None,
        "dummy": _cards(state.dummy, state.round) if state.dummy is not None else None,
        "turns": [_turn(state, t) for t in state.turns],
        "waiting": [list(g) for g in state.groups],
        "players": [player_view(p, state.round, state.config.strict_stock) for p in state.players],
        "rules": _RULES[solo],
    }
    return view


_RULES: dict[bool, Json] = {
    solo: {
        "rounds": K.rounds,
        "prices": PRICES,
        "loan": K.loan_amount,
        "common_field_cost": K.common_field_cost,
        "upgrade_cost": K.storehouse_upgrade_cost,
        "regular_fine": K.regular_fine,
        "grid_costs": list(K.solo_row_costs) if solo else None,
    }
    for solo in (False, True)
}


def _turn(state: LoyangState, turn: Turn) -> Json:
    return {
        "seat": turn.seat,
        "stage": "pay" if state.players[turn.seat].due else turn.stage.value,
        "steps": turn.steps,
        "pair_bought": turn.pair_bought,
        "drawn": [CARD_JSON[c] for c in turn.drawn],
        "discount": turn.discount,
        "bonus_regular": turn.bonus_regular,
        "bonus_casual": turn.bonus_casual,
    }


# -- scramble --------------------------------------------------------------------------------


def scramble(state: LoyangState, viewer: Seat | None, rng: Rng) -> LoyangState:
    """Re-deal what `viewer` cannot know: the deck order, face-down discards, other hands and
    the order of every face-down private field stack (keeping its two piles consistent)."""
    mixer = _Mixer(rng.below(1 << 62))
    hidden_hands = [s for s in range(len(state.players)) if s != viewer]
    face_down = state.discard[: state.face_down]
    pool: list[str] = [*state.deck, *face_down]
    for s in hidden_hands:
        pool += state.players[s].hand
    shuffled = mixer.shuffle(pool)
    deck, shuffled = shuffled[: len(state.deck)], shuffled[len(state.deck) :]
    down, shuffled = shuffled[: len(face_down)], shuffled[len(face_down) :]
    players: list[Player] = []
    for s, player in enumerate(state.players):
        hand = player.hand
        if s in hidden_hands:
            hand, shuffled = shuffled[: len(hand)], shuffled[len(hand) :]
        players.append(replace(player, hand=hand, stack=_scramble_stack(player.stack, mixer)))
    discard = down + state.discard[state.face_down :]
    return replace(state, deck=deck, discard=discard, players=tuple(players))


_SIZE = {f.id: f.size for f in DATA.private}
_PILE = len(DATA.private) // 2


class _Mixer:
    """SplitMix64 seeded from the caller's generator: one draw from it per scramble, because
    scrambles run for every viewer at every step of the no-leak test."""

    _MASK = (1 << 64) - 1

    def __init__(self, seed: int) -> None:
        self._state = seed

    def _next(self) -> int:
        self._state = (self._state + 0x9E3779B97F4A7C15) & self._MASK
        z = self._state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self._MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self._MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self._next() % n

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """Fisher-Yates, taking several indices from each 64-bit draw (mixed radix)."""
        out = list(items)
        z, room = 0, 1
        for i in range(len(out) - 1, 0, -1):
            n = i + 1
            if room < n << 20:
                z, room = self._next(), 1 << 64
            j = z % n
            z //= n
            room //= n
            out[i], out[j] = out[j], out[i]
        return tuple(out)


def _scramble_stack(stack: tuple[str, ...], rng: _Mixer) -> tuple[str, ...]:
    """A random stack with the same visible facts: per pile, which sizes are still to come."""
    if len(stack) <= _PILE:
        return rng.shuffle(stack)
    first, second = list(stack[: len(stack) - _PILE]), list(stack[len(stack) - _PILE :])
    for i, field_id in enumerate(first):
        j = next(k for k, other in enumerate(second) if _SIZE[other] == _SIZE[field_id])
        if rng.below(2):
            first[i], second[j] = second[j], first[i]
    return rng.shuffle(first) + rng.shuffle(second)
