"""The JSON wire forms of Loyang: every action form and every observation key.

Crops are named "wheat", "pumpkin", "turnip", "cabbage", "bean", "leek". Crop counts are objects
like {"wheat": 2, "bean": 1} with zero counts left out. Cards are named by id: action cards
"H01".."H20" (helpers), "MS01".. (market stalls), "RC01".. (regular customers), "CC01".. (casual
customers), "CF01".. (common fields); a player's own fields are "home" and "P3a", "P3b", "P4a" ..
"P6b" (private fields, one pair per size), common fields keep their card id.

Actions (a flat object with a "type" and snake_case keys; only the keys listed are allowed):
    {"type": "setup_sow", "crop": C}               setup: buy C from your shop, sow the home field
    {"type": "play", "card": ID}                    card phase A: hand card into the courtyard
    {"type": "reveal"}                              card phase, 2-player rule: deck top instead
    {"type": "take", "courtyard": ID, "hand": ID}   card phase B: keep both, the rest of the hand
                                                    goes to the courtyard (fields cost 2 each)
    {"type": "grid_buy", "row": R, "col": C}        solo card phase: buy a grid card (row 0 = top)
    {"type": "pick_opponent", "seat": S}            4-player paired variant: choose an opponent
    {"type": "end_turn"}                            end my action steps
    {"type": "sow", "field": F, "crop": C}          sow C from the cart on empty field F
    {"type": "buy", "crop": C}                      buy 1 C from your shop (price after discounts)
    {"type": "sell", "crop": C}                     sell 1 C from the cart (also to raise money)
    {"type": "trade", "stall": ID, "crop": C, "give": [C, ...]}
                                                    give 1-2 crops (sorted) for 1 C of your stall
    {"type": "use_helper", "card": ID, ...}         use a helper; extra keys by its effect:
        shop_discount, gain_cash, take_crops, upgrade_storehouse: none
        sales_bonus: "bonus": "regular" | "casual"
        take_crop_choice: "crop"
        stall_buy: "target", "stall", "crop"        (target: a seat, or -1 = the solo opponent)
        stall_trade: "target", "stall", "crop", "give"
        deliver_other, serve_other: "target", "customer"
    {"type": "dismiss", "card": ID}                 discard a helper unused
    {"type": "deliver", "customer": ID}             2 crops to a regular customer's next row
    {"type": "serve", "customer": ID}               3 crops to a casual customer
    {"type": "buy_pair"}                            once per round: draw 2 cards face up
    {"type": "keep", "cards": [ID, ...]}            of the drawn pair: 0, 1 or 2 (front first)
    {"type": "loan"}                                5 coins now, 1 Path step back at the end;
                                                    offered when money is due ("pay", after
                                                    the sales and cash helpers), any time with
                                                    voluntary_loans
    {"type": "upgrade"}                             storehouse 1 -> 4 spaces for 2 coins
    {"type": "store", "crop": C}                    end of turn: 1 crop from cart to storehouse
    {"type": "finish_storing"}                      the rest of the cart is sold to the shop
    {"type": "advance", "steps": N}                 pay for N steps on the Path (1 for the first
                                                    step, then the number of each space entered)
    {"type": "finish_scoring"}                      stop moving on the Path this round

Decision labels: "setup_sow", "card", "grid", "opponent", "action", "keep", "pay" (money is owed:
sell, a gain_cash helper, or loan until it is covered), "store", "score"; two seats acting at
once in different stages give "action".

Observation (`observe(state, viewer)`; viewer None = spectator):
    round                  the current round, 1..9 (0 during setup)
    phase                  "setup", "card", "opponent", "action", "closing" (end_of_round
                           storing/scoring), "over"
    seat                   the viewer (null for spectators)
    start_player, second_player   the large and small start markers
    card_turn              card phase: whose turn it is (null otherwise and in solo)
    partners               paired variant: each seat's opponent this round, else null
    deck                   cards left in the action deck (a count; its order is secret)
    discard                face-up discard pile, card ids, oldest first
    discard_face_down      face-down cards under it (solo setup)
    courtyard              cards in the courtyard (card objects, see below)
    hand                   the viewer's own hand (card objects); null for spectators
    grid                   solo: 4 rows of 3 (card object or null), row 0 on top; else null
    dummy                  solo opponent: {"stalls", "regulars", "casuals"} as for players
    turns                  action turns in progress: {"seat", "stage" ("action", "keep", "pay",
                           "store", "score"), "steps", "pair_bought", "drawn" (card objects),
                           "discount" (pending shop discount), "bonus_regular", "bonus_casual"}
    waiting                groups of seats still to take their action turn this round
    events                 what the viewer may see since it last decided (public view: the
                           events of the last decision); added by the driver, see Events
    rules                  constants: {"rounds", "prices": {"buy", "sell"}, "loan",
                           "common_field_cost", "upgrade_cost", "regular_fine", "grid_costs"
                           (solo cost per grid row, else null)}
    players                per seat, all public:
        cash, loans, position, final_position (after loans), storehouse_capacity,
        due (money owed now), cart, storehouse (crop counts), private_stack (a count),
        hand_size, pair_price (what a card pair costs now), shop (crop counts; only with
        shop_stock_mode=strict, where buying needs stock and selling a free space),
        fields: [{"id", "size", "crop" (null = unsown), "count"}] plus "allowed" (the crops it
                may be sown with) while unsown
        stalls: [{"id", "cost" (crops to give per crop), "goods" (crops left)}]
        helpers: [{"id", "name", "lantern", "effect", "amount", "crops"}]
        regulars: [{"id", "crops", "pays", "rows" (rows delivered), "good", "start" (first
                    round of its window), "delivered" (deliveries this round)}]
        casuals: [{"id", "crops", "payout", "pays_now" (with the +-2 modifier)}]
    Placed cards and fields carry "under" (a card object) when a kept pair's back card lies
    behind them.
    A card object (hand, courtyard, drawn, grid, under): {"id", "kind", ...}; by kind:
        helper: "name" (null if unknown), "lantern", "effect", "amount", "crops"
        market_stall: "offers" (crops it starts with), "cost" (crops to give per crop)
        regular_customer: "crops" (2), "pays" (coins per row, bottom first), "blue_dot"
        casual_customer: "crops" (3), "payout"
        common_field: "size", "allowed"

Events: {"number": int (the decision that produced it; -1 at setup), "kind": string, ...} with,
per kind, these further keys (C a crop name, ID a card id). Every event is public except "hand",
which reaches only its seat:

    setup           start_player, second_player
    hand            seat, cards: [ID]          cards dealt into the seat's hand (private)
    sow             seat, field, crop (+ amount: the price, when setup buys the home crop)
    round           round, start_player, second_player        a round begins (harvest next)
    harvest         seat, crops: [C] (one per sown field), fields: [ID] (the private field
                    revealed), emptied: [ID] (fields emptied and discarded)
    reshuffle       count                      the discard pile became the deck
    deal            count (cards per hand), start_player      the card phase begins
    play            seat, card                 option A: a hand card into the courtyard
    reveal          seat, card                 2-player rule: the deck's top card instead
    take            seat, cards: [courtyard card, hand card], returned: [ID] (the rest of the
                    hand, now in the courtyard), amount (paid for fields)
    grid_buy        seat, card, row, col, amount               solo card phase
    grid_refilled   cards: [ID]                solo: the discarded rest of the chosen row
    card_phase_end  start_player, second_player
    pick_opponent   seat, target               paired variant
    turn            seat                       an action turn begins
    buy, sell       seat, crop, amount
    trade           seat, card (the stall), crop, crops: [C] (given); a lantern trade adds
                    target (the stall's owner, -1 = the solo opponent) and amount (paid)
    deliver, serve  seat, target (the customer's owner), card, amount (coins received)
    helper          seat, card (+ amount when it raised money that was due)
    dismiss         seat, card
    buy_pair        seat, amount, cards: [ID]  the pair drawn face up
    keep            seat, cards: [ID], amount (paid for fields)
    loan            seat, amount, count (the seat's loans now)
    upgrade         seat, amount
    unhappy         seat, card                 a regular customer missed: marker flipped
    fine            seat, card, amount         missed again: fined
    regular_gone    seat, card                 its four rounds are over: discarded
    end_turn        seat
    store           seat, crop
    cart_sold       seat, crops: [C], amount   what was left on the cart at the end of a turn
    advance         seat, steps, amount, position              paid steps on the Path
    game_over       positions: [int], cash: [int] (per seat), rating (solo only)
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any, NoReturn

from engines.api import Json, Seat
from engines.errors import InvalidAction
from engines.loyang.actions import (
    Action,
    Advance,
    Buy,
    BuyPair,
    Deliver,
    Dismiss,
    EndTurn,
    FinishScoring,
    FinishStoring,
    GridBuy,
    Keep,
    Loan,
    PickOpponent,
    Play,
    Reveal,
    Sell,
    Serve,
    SetupSow,
    Sow,
    Store,
    Take,
    Trade,
    Upgrade,
    UseHelper,
)
from engines.loyang.cards import Crop, EffectKind, HelperDef
from engines.loyang.data import DATA
from engines.loyang.state import Bonus

_FIELD_IDS = frozenset({DATA.home.id, *(f.id for f in DATA.private)})
_HELPER_KEYS = {
    EffectKind.SALES_BONUS: {"bonus"},
    EffectKind.TAKE_CROP_CHOICE: {"crop"},
    EffectKind.STALL_BUY: {"target", "stall", "crop"},
    EffectKind.STALL_TRADE: {"target", "stall", "crop", "give"},
    EffectKind.DELIVER_OTHER: {"target", "customer"},
    EffectKind.SERVE_OTHER: {"target", "customer"},
}
_EMPTY: dict[str, Action] = {
    "reveal": Reveal(),
    "end_turn": EndTurn(),
    "buy_pair": BuyPair(),
    "loan": Loan(),
    "upgrade": Upgrade(),
    "finish_storing": FinishStoring(),
    "finish_scoring": FinishScoring(),
}


class _Parser:
    def __init__(self, seat: Seat, wire: object) -> None:
        self.seat = seat
        if not isinstance(wire, dict):
            self.fail(f"a Loyang action is a JSON object with a 'type', not {wire!r}")
        self.wire: dict[str, Any] = wire
        kind = self.wire.get("type")
        if not isinstance(kind, str):
            self.fail("the action has no 'type' text")
        self.kind: str = kind

    def fail(self, message: str) -> NoReturn:
        raise InvalidAction(message, seat=self.seat)

    def keys(self, required: AbstractSet[str], optional: AbstractSet[str] = frozenset()) -> None:
        given = set(self.wire) - {"type"}
        missing = sorted(required - given)
        if missing:
            self.fail(f"'{self.kind}' needs key(s) {missing}")
        extra = sorted(given - required - optional)
        if extra:
            self.fail(f"'{self.kind}' has no key(s) {extra}")

    def crop(self, key: str) -> Crop:
        crop = Crop.parse(self.wire[key])
        if crop is None:
            self.fail(f"'{key}' must be a crop name, not {self.wire[key]!r}")
        return crop

    def card(self, key: str, fields: bool = False) -> str:
        value = self.wire[key]
        if not isinstance(value, str) or not (
            value in DATA.cards or (fields and value in _FIELD_IDS)
        ):
            self.fail(f"'{key}' must be a card id, not {value!r}")
        return str(value)

    def integer(self, key: str, low: int, high: int) -> int:
        value = self.wire[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(f"'{key}' must be an integer in {low}..{high}, not {value!r}")
        return int(value)

    def give(self) -> tuple[Crop, ...]:
        value = self.wire["give"]
        if not isinstance(value, list) or not 1 <= len(value) <= 2:
            self.fail(f"'give' must be a list of 1 or 2 crops, not {value!r}")
        crops = [Crop.parse(v) for v in value]
        if any(c is None for c in crops):
            self.fail(f"'give' must list crop names, not {value!r}")
        return tuple(sorted(c for c in crops if c is not None))


def parse(seat: Seat, wire: object) -> Action:
    """Parse an action's JSON form; junk raises `InvalidAction` naming what is wrong."""
    p = _Parser(seat, wire)
    kind = p.kind
    if kind in _EMPTY:
        p.keys(set())
        return _EMPTY[kind]
    handler = _HANDLERS.get(kind)
    if handler is None:
        p.fail(f"unknown action type {kind!r}; known: {sorted([*_EMPTY, *_HANDLERS])}")
    return handler(p)


def _use_helper(p: _Parser) -> Action:
    p.keys({"card"}, {"target", "stall", "crop", "give", "customer", "bonus"})
    card = p.card("card")
    definition = DATA.cards[card]
    if not isinstance(definition, HelperDef):
        p.fail(f"{card} is not a helper")
    p.keys({"card", *_HELPER_KEYS.get(definition.effect.kind, set())})
    bonus = p.wire.get("bonus")
    if bonus is not None and bonus not in ("regular", "casual"):
        p.fail(f"'bonus' must be 'regular' or 'casual', not {bonus!r}")
    return UseHelper(
        card=card,
        target=p.integer("target", -1, 3) if "target" in p.wire else None,
        stall=p.card("stall") if "stall" in p.wire else None,
        crop=p.crop("crop") if "crop" in p.wire else None,
        give=p.give() if "give" in p.wire else (),
        customer=p.card("customer") if "customer" in p.wire else None,
        bonus=None if bonus is None else Bonus(bonus),
    )


def _keep(p: _Parser) -> Action:
    p.keys({"cards"})
    cards = p.wire["cards"]
    if not isinstance(cards, list) or len(cards) > 2:
        p.fail(f"'cards' must be a list of at most 2 card ids, not {cards!r}")
    ids = []
    for value in cards:
        if not isinstance(value, str) or value not in DATA.cards:
            p.fail(f"'cards' must list card ids, not {value!r}")
        ids.append(str(value))
    if len(set(ids)) != len(ids):
        p.fail("'cards' lists a card twice")
    return Keep(tuple(ids))


def _with(keys: set[str], make: Callable[[_Parser], Action]) -> Callable[[_Parser], Action]:
    def handler(p: _Parser) -> Action:
        p.keys(keys)
        return make(p)

    return handler


_HANDLERS: dict[str, Callable[[_Parser], Action]] = {
    "setup_sow": _with({"crop"}, lambda p: SetupSow(p.crop("crop"))),
    "play": _with({"card"}, lambda p: Play(p.card("card"))),
    "take": _with({"courtyard", "hand"}, lambda p: Take(p.card("courtyard"), p.card("hand"))),
    "grid_buy": _with(
        {"row", "col"}, lambda p: GridBuy(p.integer("row", 0, 9), p.integer("col", 0, 9))
    ),
    "pick_opponent": _with({"seat"}, lambda p: PickOpponent(p.integer("seat", 0, 3))),
    "sow": _with({"field", "crop"}, lambda p: Sow(p.card("field", fields=True), p.crop("crop"))),
    "buy": _with({"crop"}, lambda p: Buy(p.crop("crop"))),
    "sell": _with({"crop"}, lambda p: Sell(p.crop("crop"))),
    "trade": _with(
        {"stall", "crop", "give"}, lambda p: Trade(p.card("stall"), p.crop("crop"), p.give())
    ),
    "use_helper": _use_helper,
    "dismiss": _with({"card"}, lambda p: Dismiss(p.card("card"))),
    "deliver": _with({"customer"}, lambda p: Deliver(p.card("customer"))),
    "serve": _with({"customer"}, lambda p: Serve(p.card("customer"))),
    "keep": _keep,
    "store": _with({"crop"}, lambda p: Store(p.crop("crop"))),
    "advance": _with({"steps"}, lambda p: Advance(p.integer("steps", 1, 1000))),
}


def dump(action: Action) -> dict[str, Json]:
    """The JSON form of an action."""
    if isinstance(action, (SetupSow, Buy, Sell, Store)):
        return {"type": _NAMES[type(action)], "crop": action.crop.wire}
    if isinstance(action, (Play, Dismiss)):
        return {"type": _NAMES[type(action)], "card": action.card}
    if isinstance(action, (Deliver, Serve)):
        return {"type": _NAMES[type(action)], "customer": action.customer}
    if isinstance(action, Sow):
        return {"type": "sow", "field": action.field, "crop": action.crop.wire}
    if isinstance(action, Trade):
        give: list[Json] = [c.wire for c in action.give]
        return {"type": "trade", "stall": action.stall, "crop": action.crop.wire, "give": give}
    if isinstance(action, UseHelper):
        out: dict[str, Json] = {"type": "use_helper", "card": action.card}
        if action.target is not None:
            out["target"] = action.target
        if action.stall is not None:
            out["stall"] = action.stall
        if action.crop is not None:
            out["crop"] = action.crop.wire
        if action.give:
            out["give"] = [c.wire for c in action.give]
        if action.customer is not None:
            out["customer"] = action.customer
        if action.bonus is not None:
            out["bonus"] = action.bonus.value
        return out
    if isinstance(action, Take):
        return {"type": "take", "courtyard": action.courtyard, "hand": action.hand}
    if isinstance(action, GridBuy):
        return {"type": "grid_buy", "row": action.row, "col": action.col}
    if isinstance(action, PickOpponent):
        return {"type": "pick_opponent", "seat": action.seat}
    if isinstance(action, Keep):
        return {"type": "keep", "cards": list(action.cards)}
    if isinstance(action, Advance):
        return {"type": "advance", "steps": action.steps}
    return {"type": _NAMES[type(action)]}


_NAMES: dict[type, str] = {
    **{type(a): name for name, a in _EMPTY.items()},
    SetupSow: "setup_sow",
    Buy: "buy",
    Sell: "sell",
    Store: "store",
    Play: "play",
    Dismiss: "dismiss",
    Deliver: "deliver",
    Serve: "serve",
}
