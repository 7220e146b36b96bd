"""The JSON wire forms of Hart an der Grenze: every action and every observation key.

Goods are lower-case names: "jug", "maracas", "sombrero" (legal) and "cigar", "tequila",
"statue" (illegal). A list of goods holds one name per card, cheapest kind first (the order above).
Money is an int. Seats are ints 0..n-1. Every key below is always present (null where noted).

Actions (flat objects with a "type"; no other keys are accepted):

    {"type": "pack", "goods": [good, ...]}     decision "pack": 1-5 cards from the hand
    {"type": "declare", "count": int, "good": good}
                                               decision "declare": count 1-5, a legal good
    {"type": "inspect", "seat": int}           decisions "inspect" and "extra_control"
    {"type": "seize", "seat": int}             decision "seize"
    {"type": "pass"}                           inspect nobody / do not use the token
    {"type": "offer", "amount": int}           decision "bribe": a proposal or counter-proposal,
                                               1..the inspected trader's money; a counter must
                                               beat accepting (the sheriff asks more than the
                                               standing offer, the trader offers less than the
                                               standing demand); at most max_offers per side
    {"type": "accept"}                         decision "bribe": take the other side's last offer
    {"type": "open"}                           decision "bribe": no deal, the suitcase is opened
    {"type": "keep", "goods": [good, ...]}     decision "keep": 0-3 cards from behind the suitcase
    {"type": "appoint", "seat": int}           decision "appoint": next round's first sheriff

Legal actions are listed while a seat has at most 256; a bribe decision with more amounts is
described instead ({"kind": "mixed", "actions": [...], "ranges": [{"template": {"type": "offer",
"amount": 1}, "field": "amount", "min": int, "max": int}]}, see `engines.spaces`).

Observation (`observe` builds it in this form; `dump_observation` returns it as is):

    viewer            int | null       the seat viewing; null for the public (spectator) view
    phase             string           pack, declare, inspect, bribe, extra_control, seize, keep,
                                       appoint or over
    round, rounds     int              1-based round; 3
    turn              int              1-based turn within the round
    turns_per_round   int              seats (2 x seats with 3 seats)
    sheriff           int
    to_act            [int]            seats that must answer now
    traders           [int]            seats with a suitcase this turn, in declaration order
    selected          [int]            seats inspected this turn (bribed or opened)
    deck              int              cards in the draw pile
    discard           {good: int}      the face-up discard pile, cards per good (all six keys)
    sale_caps         {good: int}      end-sale cap per good for this seat count (all six keys)
    options           {"strict_count": bool, "next_sheriff_tie": "en"|"zh", "max_offers": int}
    players           [player]         one per seat, by seat
    bribe             bribe | null     the negotiation under way
    me                secrets | null   the viewer's own cards; null in the public view
    events            [event]          what the viewer may see since it last decided (public view:
                                       the events of the last decision); added by the match
                                       driver from the events `step` returns

    player  = {"seat": int, "money": int, "hand": int, "suitcase": int,
               "declaration": {"count": int, "good": good} | null, "behind": int, "under": int,
               "seizure_token": bool, "extra_control_token": bool}
              (hand, suitcase, behind, under are card counts)
    bribe   = {"seat": int (the inspected trader), "sheriff": int,
               "control": "inspection" | "extra_control",
               "offers": [{"seat": int, "amount": int}, ...] (oldest first),
               "trader_offers_left": int, "sheriff_offers_left": int}
    secrets = {"hand": [good], "suitcase": [good], "behind": [good], "under": [good]}

Events: {"number": int (the decision that produced it; -1 at setup), "kind": string, ...} with,
per kind, exactly these further keys. Every event is public except "seized", which reaches only
the sheriff and the seized seat:

    setup       first_sheriff: int, money: [int]
    reshuffle   count: int                     the discard pile became the draw pile
    deal        counts: [int]                  cards dealt to each seat (refilling hands to 5)
    turn        round: int, turn: int, sheriff: int
    pack        seat: int, count: int
    declare     seat: int, count: int, good: good
    pass        seat: int, step: "inspection" | "extra_control" | "seizure"
    inspect     sheriff: int, seat: int, control: "inspection" | "extra_control"
    offer       seat: int, amount: int
    no_deal     seat: int                      who ended the negotiation; the suitcase opens
    bribe       seat: int, sheriff: int, amount: int
    open        seat: int, sheriff: int, goods: [good], declared_count: int,
                declared_good: good, kept: [good], discarded: [good], compensation: int,
                penalty_due: int, penalty_paid: int
    seize       sheriff: int, seat: int, taken_count: int, returned_count: int
    seized      sheriff: int, seat: int, goods: [good], taken: [good], returned: [good]
                                               private to the sheriff and the seat
    stow        counts: [int]                  per seat, cards of an unopened suitcase that go
                                               behind it at the turn's end
    keep        seat: int, count: int          the kinds kept show in the keeper's "me.under"
    sell        seat: int, goods: [good], income: int
    round_end   round: int, money: [int]
    poorest     seats: [int], chooser: int | null   (null when the tie rule names the sheriff)
    appoint     seat: int, sheriff: int
    final_sale  good: good, cap: int, held: [int], incomes: [int]  (per seat)
    game_over   money: [int]
"""

from __future__ import annotations

from collections.abc import Callable

from engines.api import Json, Seat
from engines.errors import InvalidAction
from engines.hart.actions import (
    ACTION_TYPES,
    Accept,
    Action,
    Appoint,
    Declare,
    Inspect,
    Keep,
    Offer,
    Open,
    Pack,
    Pass,
    Seize,
)
from engines.hart.data import GOOD_BY_NAME, Good
from engines.hart.state import Bag

_FIELDS: dict[str, tuple[str, ...]] = {
    "pack": ("goods",),
    "declare": ("count", "good"),
    "inspect": ("seat",),
    "seize": ("seat",),
    "pass": (),
    "offer": ("amount",),
    "accept": (),
    "open": (),
    "keep": ("goods",),
    "appoint": ("seat",),
}


def parse_action(seat: Seat, wire: object) -> Action:
    """Parse a wire action; anything malformed raises `InvalidAction` saying what is wrong."""
    if not isinstance(wire, dict):
        raise InvalidAction(f"an action is a JSON object with a 'type', not {wire!r}", seat=seat)
    kind = wire.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise InvalidAction(
            f"action 'type' must be one of {sorted(_FIELDS)}, got {kind!r}", seat=seat
        )
    expected = {"type", *_FIELDS[kind]}
    missing = sorted(expected - set(wire))
    if missing:
        raise InvalidAction(f"{kind!r} action lacks {missing}", seat=seat)
    extra = sorted(str(k) for k in set(wire) - expected)
    if extra:
        raise InvalidAction(f"{kind!r} action has unknown key(s) {extra}", seat=seat)

    def integer(key: str) -> int:
        value = wire[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidAction(f"{kind!r} {key!r} must be an integer, got {value!r}", seat=seat)
        return value

    def good(value: object) -> Good:
        if not isinstance(value, str) or value not in GOOD_BY_NAME:
            raise InvalidAction(
                f"{kind!r} names an unknown good {value!r}; goods are {list(GOOD_BY_NAME)}",
                seat=seat,
            )
        return GOOD_BY_NAME[value]

    def goods() -> Bag:
        value = wire["goods"]
        if not isinstance(value, list):
            raise InvalidAction(f"{kind!r} 'goods' must be a list of goods names", seat=seat)
        return Bag.of(good(item) for item in value)

    makers: dict[str, Callable[[], Action]] = {
        "pack": lambda: Pack(goods()),
        "declare": lambda: Declare(integer("count"), good(wire["good"])),
        "inspect": lambda: Inspect(integer("seat")),
        "seize": lambda: Seize(integer("seat")),
        "pass": Pass,
        "offer": lambda: Offer(integer("amount")),
        "accept": Accept,
        "open": Open,
        "keep": lambda: Keep(goods()),
        "appoint": lambda: Appoint(integer("seat")),
    }
    return makers[kind]()


def dump_action(action: Action) -> Json:
    """The wire form of an action."""
    out: dict[str, Json] = {"type": ACTION_TYPES[type(action)]}
    # Tuples, not unions: `isinstance` takes a tuple faster, and `names()` is already a new list.
    if isinstance(action, (Pack, Keep)):
        out["goods"] = action.goods.names()
    elif isinstance(action, Declare):
        out["count"] = action.count
        out["good"] = action.good.value
    elif isinstance(action, (Inspect, Seize, Appoint)):
        out["seat"] = action.seat
    elif isinstance(action, Offer):
        out["amount"] = action.amount
    return out
