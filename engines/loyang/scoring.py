"""The end of an action turn: regular customers are checked, crops stored, the Path paid for."""

from __future__ import annotations

from dataclasses import replace

from engines.api import Json, Seat
from engines.loyang import board, legal
from engines.loyang.actions import Advance, Store
from engines.loyang.board import K
from engines.loyang.cards import CROPS
from engines.loyang.counts import add
from engines.loyang.data import DATA
from engines.loyang.members import DONE, OWN_TURN, SCORE, STORE
from engines.loyang.records import evolve_turn
from engines.loyang.state import Turn
from engines.loyang.work import Work


def end_turn(w: Work, seat: Seat) -> None:
    """Check regular customers (flip, fine, window end), then go on to storing or finish."""
    player = w.edit(seat)
    fines = 0
    kept = []
    discards: list[str] = []
    revealed: list[str | None] = []
    for regular in player.regulars:
        k = w.round - regular.start + 1
        if k < 1:
            kept.append(regular)
            continue
        covered = (regular.last == w.round and regular.times > 0) or regular.rows >= k
        if not covered:
            if regular.good:
                regular = replace(regular, good=False)
                w.emit("unhappy", seat=seat, card=regular.card)
            else:
                fines += K.regular_fine
                w.emit("fine", seat=seat, card=regular.card, amount=K.regular_fine)
        if k >= len(board.regular_def(regular.card).rows):
            discards.append(regular.card)
            revealed.append(regular.under)
            w.emit("regular_gone", seat=seat, card=regular.card)
        else:
            kept.append(regular)
    player.regulars = tuple(kept)
    w.acted = w.acted | {seat}
    for under in revealed:
        board.reveal_under(player, under, w.round + 1)
    if fines:
        board.pay_or_owe(player, fines, w.config.strict_stock)
    turn = w.turn_of(seat)
    assert turn is not None
    stage = STORE if w.config.timing is OWN_TURN else DONE
    w.set_turn(evolve_turn(turn, stage=stage))
    w.discard_cards(tuple(discards))
    w.emit("end_turn", seat=seat)


def store(w: Work, seat: Seat, action: Store) -> None:
    """Move 1 crop from the cart into the storehouse."""
    player = w.edit(seat)
    player.cart = add(player.cart, action.crop, -1)
    player.store = add(player.store, action.crop)
    w.emit("store", seat=seat, crop=action.crop.wire)


def finish_storing(w: Work, seat: Seat, turn: Turn) -> None:
    """Done storing: the rest of the cart is sold; scoring comes next."""
    clear_cart(w, seat)
    w.set_turn(evolve_turn(turn, stage=SCORE))


def clear_cart(w: Work, seat: Seat) -> None:
    """Sell what is left on the cart (strict stock: what fits; the rest goes to the supply)."""
    player = w.edit(seat)
    strict = w.config.strict_stock
    sold: list[Json] = []
    income = 0
    for crop in CROPS:
        for _ in range(player.cart[crop]):
            if strict and player.shop[crop] >= DATA.shop_capacity[crop]:
                player.cart = add(player.cart, crop, -1)
            else:
                board.sell(player, crop)
                sold.append(crop.wire)
                income += DATA.sell[crop]
    if sold:
        w.emit("cart_sold", seat=seat, crops=sold, amount=income)


def advance(w: Work, seat: Seat, turn: Turn, action: Advance) -> None:
    """Pay for steps on the Path of Prosperity: 1 for the first, then each space's number."""
    player = w.edit(seat)
    cost = board.path_cost(player.position, action.steps)
    player.cash -= cost
    player.position += action.steps
    w.set_turn(evolve_turn(turn, stage=DONE))
    w.emit("advance", seat=seat, steps=action.steps, amount=cost, position=player.position)


def normalize(w: Work, seat: Seat) -> None:
    """Skip stages of `seat` that offer no real choice; drop its turn once done."""
    while True:
        turn = w.turn_of(seat)
        player = w.players[seat]
        if turn is None or player.due > 0:
            return
        if turn.stage is STORE and (not any(player.cart) or len(legal.store_actions(player)) == 1):
            finish_storing(w, seat, turn)
        elif turn.stage is SCORE and board.affordable_steps(player) == 0:
            w.set_turn(evolve_turn(turn, stage=DONE))
        elif turn.stage is DONE:
            w.turns = tuple(t for t in w.turns if t.seat != seat)
            return
        else:
            return
