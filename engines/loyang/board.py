"""Operations on one player's board: placing and discarding cards, fields, money and the Path."""

from __future__ import annotations

from dataclasses import replace

from engines.loyang.cards import (
    CROPS,
    CasualDef,
    Counts,
    Crop,
    FieldDef,
    HelperDef,
    RegularDef,
    StallDef,
)
from engines.loyang.counts import add
from engines.loyang.data import DATA
from engines.loyang.members import GAIN_CASH
from engines.loyang.records import field_with
from engines.loyang.state import Casual, Dummy, Field, Helper, Player, Regular, Stall
from engines.loyang.work import Board, PlayerWork

K = DATA.constants
Discards = tuple[str, ...]
"""Cards an operation sends to the action discard pile."""


def is_field(card_id: str) -> bool:
    """Whether an action card is a common field (placing it costs money)."""
    return isinstance(DATA.cards[card_id], FieldDef)


def place(player: PlayerWork, card_id: str, under: str | None, start: int) -> None:
    """Put an action card (`under` behind it) in its place; `start` opens a customer's window."""
    definition = DATA.cards[card_id]
    if isinstance(definition, HelperDef):
        player.helpers = (*player.helpers, Helper(card_id, under))
    elif isinstance(definition, StallDef):
        player.stalls = (*player.stalls, Stall(card_id, definition.stock, under))
    elif isinstance(definition, RegularDef):
        player.regulars = (*player.regulars, Regular(card_id, start, under=under))
    elif isinstance(definition, CasualDef):
        player.casuals = (*player.casuals, Casual(card_id, under))
    else:
        new = Field(definition.id, definition.size, definition.allowed, common=True, under=under)
        player.fields = (*player.fields, new)


def reveal_under(player: PlayerWork, under: str | None, start: int) -> None:
    """When a front card leaves, the card behind it goes to its own place at once."""
    if under is not None:
        place(player, under, None, start)


def remove_stall(player: PlayerWork, index: int, start: int) -> Discards:
    """Discard the stall at `index` (it is empty)."""
    stall = player.stalls[index]
    player.stalls = player.stalls[:index] + player.stalls[index + 1 :]
    reveal_under(player, stall.under, start)
    return (stall.card,)


def remove_helper(player: PlayerWork, index: int, start: int) -> Discards:
    """Discard the helper at `index` (used or dismissed)."""
    helper = player.helpers[index]
    player.helpers = player.helpers[:index] + player.helpers[index + 1 :]
    reveal_under(player, helper.under, start)
    return (helper.card,)


def remove_regular(player: PlayerWork, index: int, start: int) -> Discards:
    """Discard the regular customer at `index` (complete, or its window is over)."""
    regular = player.regulars[index]
    player.regulars = player.regulars[:index] + player.regulars[index + 1 :]
    reveal_under(player, regular.under, start)
    return (regular.card,)


def remove_casual(player: PlayerWork, index: int, start: int) -> Discards:
    """Discard the casual customer at `index` (served)."""
    casual = player.casuals[index]
    player.casuals = player.casuals[:index] + player.casuals[index + 1 :]
    reveal_under(player, casual.under, start)
    return (casual.card,)


def take_from_stall(stalls: tuple[Stall, ...], index: int, crop: Crop) -> tuple[Stall, ...]:
    """`stalls` with one `crop` taken from the stall at `index`."""
    stall = stalls[index]
    taken = Stall(stall.card, add(stall.goods, crop, -1), stall.under)  # = replace(stall, goods=)
    return (*stalls[:index], taken, *stalls[index + 1 :])


def stall_after_take(player: PlayerWork, index: int, crop: Crop, start: int) -> Discards:
    """Take one `crop` from the player's stall `index`; an emptied stall is discarded."""
    player.stalls = take_from_stall(player.stalls, index, crop)
    if sum(player.stalls[index].goods) == 0:
        return remove_stall(player, index, start)
    return ()


def dummy_after_take(dummy: Dummy, index: int, crop: Crop) -> tuple[Dummy, Discards]:
    """Take one `crop` from the solo opponent's stall `index`; an emptied stall is discarded."""
    stalls = take_from_stall(dummy.stalls, index, crop)
    if sum(stalls[index].goods) == 0:
        return replace(dummy, stalls=stalls[:index] + stalls[index + 1 :]), (stalls[index].card,)
    return replace(dummy, stalls=stalls), ()


def deliver_row(regular: Regular, round_: int) -> Regular:
    """The customer after one delivery in `round_`."""
    times = regular.times + 1 if regular.last == round_ else 1
    return replace(regular, rows=regular.rows + 1, last=round_, times=times)


def may_deliver(regular: Regular, round_: int, regular_max: int) -> bool:
    """Whether a delivery to this customer is possible now (window open, rows and cap left)."""
    if regular.start > round_ or regular.rows >= len(regular_def(regular.card).rows):
        return False
    return regular.last != round_ or regular.times < regular_max


def regular_def(card_id: str) -> RegularDef:
    """A regular customer's definition."""
    definition = DATA.cards[card_id]
    assert isinstance(definition, RegularDef)
    return definition


def casual_def(card_id: str) -> CasualDef:
    """A casual customer's definition."""
    definition = DATA.cards[card_id]
    assert isinstance(definition, CasualDef)
    return definition


def stall_def(card_id: str) -> StallDef:
    """A market stall's definition."""
    definition = DATA.cards[card_id]
    assert isinstance(definition, StallDef)
    return definition


def helper_def(card_id: str) -> HelperDef:
    """A helper's definition."""
    definition = DATA.cards[card_id]
    assert isinstance(definition, HelperDef)
    return definition


def casual_payout(player: Board, card_id: str) -> int:
    """Printed coins, -2 with more casual than regular customers, +2 with fewer (research L17)."""
    printed = casual_def(card_id).payout
    casuals, regulars = len(player.casuals), len(player.regulars)
    if casuals > regulars:
        return max(0, printed - K.casual_modifier)
    if casuals < regulars:
        return printed + K.casual_modifier
    return printed


def pair_price(player: Board) -> int:
    """A card pair costs the larger of your uncovered stalls and helpers."""
    return max(len(player.stalls), len(player.helpers))


def capacity(player: Board) -> int:
    """How many crops the storehouse holds."""
    return K.storehouse_upgraded if player.upgraded else K.storehouse_base


def path_cost(position: int, steps: int) -> int:
    """The cost of `steps` steps from `position` in one round: 1 for the first, then each
    further step costs the number of the space entered (from 7: 8 then 9 costs 1 + 9)."""
    if steps <= 0:
        return 0
    return K.first_step_cost + sum(range(position + 2, position + steps + 1))


def affordable_steps(player: Board) -> int:
    """The most steps the player's cash pays for this round."""
    steps = 0
    while path_cost(player.position, steps + 1) <= player.cash:
        steps += 1
    return steps


def final_position(player: Board) -> int:
    """The Path position after the loan penalty, never below the floor."""
    return max(K.path_floor, player.position - player.loans * K.loan_penalty)


def crops_held(player: Board) -> int:
    """Crops on fields, cart and storehouse (the shop does not count): the second tie-break."""
    return sum(f.count for f in player.fields) + sum(player.cart) + sum(player.store)


def pay_or_owe(player: PlayerWork, amount: int, strict: bool) -> None:
    """Charge `amount`: paid at once if the cash is there, else owed until money is raised."""
    player.due += amount
    settle(player, strict)


def settle(player: PlayerWork, strict: bool) -> None:
    """Pay what is owed once the cash covers it; with no way to raise money but loans, borrow."""
    if player.due == 0:
        return
    if player.cash < player.due and not can_raise(player, strict):
        need = player.due - player.cash
        loans = -(-need // K.loan_amount)
        player.loans += loans
        player.cash += loans * K.loan_amount
    if player.cash >= player.due:
        player.cash -= player.due
        player.due = 0


def can_raise(player: Board, strict: bool) -> bool:
    """Whether the player has a way to raise money other than a loan (a sale or a cash helper)."""
    return bool(sellable(player, strict)) or any(_is_cash_helper(h.card) for h in player.helpers)


def sellable(player: Board, strict: bool) -> tuple[Crop, ...]:
    """The crops the player may sell now, cheapest first (strict stock: the shop needs room)."""
    crops = [
        c
        for c in CROPS
        if player.cart[c] and (not strict or player.shop[c] < DATA.shop_capacity[c])
    ]
    return tuple(sorted(crops, key=lambda c: (DATA.sell[c], c)))


def sell(player: PlayerWork, crop: Crop) -> None:
    """Sell 1 `crop` from the cart to the shop."""
    player.cart = add(player.cart, crop, -1)
    player.cash += DATA.sell[crop]
    player.shop = add(player.shop, crop, 1)


def _is_cash_helper(card_id: str) -> bool:
    return helper_def(card_id).effect.kind is GAIN_CASH


def sow(player: PlayerWork, index: int, crop: Crop) -> None:
    """Sow `crop` from the cart on the empty field at `index`, filling it from the supply."""
    fields = list(player.fields)
    fields[index] = field_with(fields[index], crop, fields[index].size)
    player.fields = tuple(fields)
    player.cart = add(player.cart, crop, -1)


def harvest(player: PlayerWork, start: int) -> tuple[Discards, tuple[Field, ...]]:
    """Take 1 crop from each sown field and empty the storehouse onto the cart.

    Emptied fields are discarded (private ones leave the game, common ones go to the discard
    pile, and a card behind one is placed). Returns the discards and the fields emptied.
    """
    cart = list(player.cart)
    for crop, n in enumerate(player.store):
        cart[crop] += n
    kept: list[Field] = []
    discards: list[str] = []
    emptied: list[Field] = []
    for f in player.fields:
        if f.crop is None:
            kept.append(f)
            continue
        cart[f.crop] += 1
        if f.count > 1:
            kept.append(field_with(f, f.crop, f.count - 1))
        else:
            emptied.append(f)
            if f.common:
                discards.append(f.id)
    player.fields = tuple(kept)
    player.cart = tuple(cart)
    player.store = (0,) * 6
    for f in emptied:
        reveal_under(player, f.under, start)
    return tuple(discards), tuple(emptied)


def starting_player(stack: tuple[str, ...]) -> Player:
    """A player's board after setup, before sowing the home field."""
    home: FieldDef = DATA.home
    return Player(
        cash=K.starting_cash,
        loans=0,
        position=K.path_start,
        upgraded=False,
        cart=(0,) * 6,
        store=(0,) * 6,
        shop=DATA.shop_stock,
        fields=(Field(home.id, home.size, home.allowed),),
        stack=stack,
    )


def private_field(field_id: str) -> Field:
    """A freshly revealed private field."""
    for f in DATA.private:
        if f.id == field_id:
            return Field(f.id, f.size, f.allowed)
    raise KeyError(field_id)


def gives(cart: Counts, count: int) -> list[tuple[Crop, ...]]:
    """Every sorted multiset of `count` (1 or 2) crops the cart can give."""
    kinds = [c for c in CROPS if cart[c]]
    if count == 1:
        return [(c,) for c in kinds]
    return [(a, b) for i, a in enumerate(kinds) for b in kinds[i:] if a != b or cart[a] >= 2]
