"""Double Crossing actions and their JSON wire forms: the reference for `crossing.proto`.

Money is in units of 10,000 (150 = 1,500,000). Seats are 0..n-1; spaces are indices into
`board.spaces`; contracts are their ids ("A1"); CAR is "passenger" | "box" | "hopper" | "tank";
CREW is "railroad_crew" | "villain" | "engineer" | "stop"; C (crew mode) is "none" | "slow" |
"reverse" | "slow_reverse".

Decisions (their labels) and who answers them:

    declare       before each roll, at once: the active seat (its plan) and every other seat
                  holding any crew card (Stop or pass)
    discard       the roller of a double (not double six): which crew card to give up
    train_shop    whether to roll the die at TRAIN SHOP for a free car (the seed: "may roll")
    villain_car   the Villain's victim (or, by option, the Villain's player): which car to drop
    route         the mover, when a junction makes the end of the move a choice
    buy_crew      how many crew cards to buy (GOVT CONTRACT, CORNER STATION, or instead of a roll)
    yard          whether to buy the YARD's car
    trade         which contract to take at a TRADE space (again after each, up to the limit)
    connections   which contract to buy at half price at CONNECTIONS
    derail_car    which car to leave on an empty DERAIL space
    double_cross  which other seat's contract to try to take, or none (the seed: "may take")
    roundhouse    where to go after a double at ROUNDHOUSE, or stay (the seed: "may move")
    tower_target  whose locomotive to move from CONTROL TOWER (or nobody)
    tower_space   where to send it
    dissatisfied  which contract to give back
    rack_limit    which car to sell when the rack holds one too many
    raise_cash    which car or contract to sell at half price to pay a debt

Actions: one flat JSON object with a "type" key and snake_case keys, nothing else.

    {"type": "pass"}                      declare (not the active seat: no Stop), yard, trade,
                                          connections, tower_target, train_shop, double_cross,
                                          roundhouse: decline (ROUNDHOUSE: stay)
    {"type": "accept"}                    train_shop: roll the die for a free car
    {"type": "stop"}                      declare (not the active seat): play a Stop card
    {"type": "roll", "crew": C, "villain": S|null, "engineer": B}   ("villain" may be left out)
                                          declare (the active seat): roll to move. crew:
                                          "slow" (1 Railroad Crew: one die), "reverse" (1 card:
                                          move counter-clockwise), "slow_reverse" (2 cards);
                                          villain: a seat made to drop a car (needs a Villain);
                                          engineer: declare an Engineer (another turn when this
                                          one ends, unless refused; a refused one comes back)
    {"type": "buy_cards", "villain": S|null}
                                          declare (the active seat): instead of rolling to
                                          move, roll 1 die and buy up to that many crew cards
    {"type": "buy", "count": N}           buy_crew: buy N crew cards (0..max of the decision)
    {"type": "buy_car"}                   yard: buy the yard's car at its price
    {"type": "car", "car": CAR}           villain_car / derail_car: the car to drop;
                                          rack_limit / raise_cash: the car to sell at half price
    {"type": "discard", "card": CREW}     discard: the crew card given up for a double
    {"type": "space", "space": I}         route / roundhouse / tower_space: the space
    {"type": "contract", "contract": ID}  trade / connections: the contract to take;
                                          double_cross: the contract to try to take;
                                          dissatisfied: the contract to give back;
                                          raise_cash: the contract to sell
    {"type": "seat", "seat": S}           tower_target: whose locomotive to move

Observation (`observe` / `dump_observation`), the same keys for every viewer:

    seat          the viewer's seat, or null for the public view
    board_name    the packaged board file the match is played on
    board         null, except in the view of a seat that must decide now (other than only
                  whether to play a Stop), where it holds the static data of the board file:
                    name, title, sourced (false: proposed data), start, central (space indices),
                    win_contracts, rack_limit, hand_size, contracts_per_visit, special_rolls,
                    money: {step, start, depot_refill, crew_card_price, passenger_fee,
                            car_sale_percent},
                    cars: {CAR: {count, price, sale_price, faces: [die faces]}},
                    companies: [{id, name, space (its TRADE space)}],
                    contracts: [{id, company, cars: {CAR: n}, price}],
                    spaces: [{name, kind, next: [I] (clockwise successors)} plus "amount"
                             (pay_taxes), "car" (yard), "companies" (trade)]
                  kind is one of: start, central_station, plain, govt_contract, train_shop,
                  trade, roll_again, stop, pay_taxes, yard, crew_cards, corner_station, derail,
                  double_cross, roundhouse, control_tower, depot, dissatisfied_customer,
                  connections
    options       {round_cap, extra_turn_cap, win_central, stops_per_turn, duel_tie,
                   loose_cars_take, villain_choice, contract_sale_percent, connections_cars}
    turn          {number (turns begun, extra turns included), round (the round of
                   regular turns, 1 = every seat's first), active (seat), chain (extra
                   turns already chained), crew (C), engineer (declared), stops (Stop cards
                   played against it)}
    decision      null when the match is over, else {label, seats, about (the seat concerned:
                   the active seat, the resolver, or the owner of the rack), plus per label:
                   buy_crew "max"; trade "space", "done"; raise_cash "debt", "payee" (seat, or
                   null = the bank); route / roundhouse / tower_space "spaces"; route
                   "passes_central" (ends whose path passes Central Station); tower_space
                   "target"}
    players       per seat: {seat, position, money, cars: {CAR: n}, contracts: [ID],
                   hand_count}
    hand          the viewer's crew cards {CREW: n}; null in the public view
    yards         {CAR: cars left}
    stacks        {company id: [ID lying below its TRADE space]}
    loose_cars    [{space, cars: [CAR, oldest first]}] for spaces holding dropped cars
    depot         money on the DEPOT space
    crew_piles    [cards left in each face-down pile]
    discard       {CREW: face-up discarded cards}
    winner        the seat that won at Central Station, or null
    events        added by the match driver (`engines.driver`) from the events `step` returned:
                  what happened since the viewer last decided (public view: during the last
                  decision), each {number (the decision, -1 = setup), kind, ...fields}:

    turn {seat, turn, extra}              setup_roll {seat, die, car}
    first_player_roll {totals: [{seat, total}]}
    card_played {seat, card, why}         duel {why, attacker, defender, rolls: [a, d]}
    turn_lost {seat, by}                  engineer_declared {seat}   buys_instead {seat}
    rolled {seat, dice: [..], crew}       moved {seat, to, how: moved|roundhouse|control_tower}
    crew_offer {seat, die, most}          drew {seat, count, why}
    drew_cards {seat, cards: [CREW]}      (only in the drawer's own view)
    car_gained {seat, car, why}           yard_empty {seat, car, why}
    car_picked_up {seat, car, space}      car_dropped {seat, car, space, why}
    car_sold {seat, car, price, why}      train_shop {seat, die}
    paid {seat, amount, to (seat|null), why}                  debt_forgiven {seat, amount}
    contract_taken {seat, contract, price, why}               contract_sold {seat, contract,
    contract_returned {seat, contract, why}                   price}
    double_cross {seat, owner, contract}  contract_moved {seat, owner, contract}
    special_roll {seat, why, attempt, dice}                   customer_satisfied {seat}
    no_effect {seat, why}                 depot {seat, amount, refill}
    control_tower {seat, target, to}      reshuffled {piles: [n]}
    engineer {seat, used}                 extra_turn {seat}
    game_over {winner (seat|null), reason: completed|turn_limit}
"""

from __future__ import annotations

from typing import TypeVar

from engines.api import Json, Seat
from engines.crossing.actions import (
    Accept,
    Action,
    Buy,
    BuyCar,
    BuyCards,
    Discard,
    Pass,
    PickCar,
    PickContract,
    PickSeat,
    PickSpace,
    PlayStop,
    Roll,
)
from engines.crossing.components import Car, Crew
from engines.crossing.state import CrewMode
from engines.errors import InvalidAction

E = TypeVar("E", Car, Crew, CrewMode)

_NULLABLE: dict[str, tuple[str, ...]] = {"roll": ("villain",), "buy_cards": ("villain",)}
"""Keys that may be left out, meaning null."""

_KEYS: dict[str, tuple[str, ...]] = {
    "pass": (),
    "stop": (),
    "roll": ("crew", "villain", "engineer"),
    "buy_cards": ("villain",),
    "buy": ("count",),
    "buy_car": (),
    "car": ("car",),
    "discard": ("card",),
    "space": ("space",),
    "contract": ("contract",),
    "seat": ("seat",),
    "accept": (),
}


def dump_action(action: Action) -> dict[str, Json]:
    """The wire form of an action."""
    # The forms of every decision's answers, by exact type first: a class pattern with
    # positional captures (`Roll(crew, ...)`) costs several times an attribute read.
    kind = type(action)
    if kind is Pass:
        return {"type": "pass"}
    if kind is PlayStop:
        return {"type": "stop"}
    if type(action) is Roll:
        crew, villain, engineer = action.crew, action.villain, action.engineer
        return {"type": "roll", "crew": crew.value, "villain": villain, "engineer": engineer}
    match action:
        case Pass():
            return {"type": "pass"}
        case PlayStop():
            return {"type": "stop"}
        case Roll(crew, villain, engineer):
            return {"type": "roll", "crew": crew.value, "villain": villain, "engineer": engineer}
        case BuyCards(villain):
            return {"type": "buy_cards", "villain": villain}
        case Buy(count):
            return {"type": "buy", "count": count}
        case BuyCar():
            return {"type": "buy_car"}
        case PickCar(car):
            return {"type": "car", "car": car.value}
        case Discard(card):
            return {"type": "discard", "card": card.value}
        case PickSpace(space):
            return {"type": "space", "space": space}
        case PickContract(contract):
            return {"type": "contract", "contract": contract}
        case PickSeat(seat):
            return {"type": "seat", "seat": seat}
        case Accept():
            return {"type": "accept"}
    raise TypeError(f"not a Double Crossing action: {action!r}")


def _fail(seat: Seat, message: str) -> InvalidAction:
    return InvalidAction(message, seat=seat)


def _int(seat: Seat, wire: dict[str, object], key: str, nullable: bool = False) -> int | None:
    value = wire[key]
    if value is None and nullable:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        kind = "a non-negative integer" + (" or null" if nullable else "")
        raise _fail(seat, f"'{key}' of a {wire['type']!r} action must be {kind}, got {value!r}")
    return value


def _enum(seat: Seat, wire: dict[str, object], key: str, enum_type: type[E]) -> E:
    value = wire[key]
    known = [e.value for e in enum_type]
    if value not in known:
        raise _fail(
            seat, f"'{key}' of a {wire['type']!r} action must be one of {known}, got {value!r}"
        )
    parsed: E = enum_type(value)  # named: mypyc's checker took the call for Any
    return parsed


def parse_action(seat: Seat, wire: object) -> Action:
    """Parse a wire action; anything malformed raises `InvalidAction` saying what is wrong."""
    if not isinstance(wire, dict):
        raise _fail(seat, f"a Double Crossing action is a JSON object, not {wire!r}")
    kind = wire.get("type")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise _fail(seat, f"unknown action type {kind!r}; known: {sorted(_KEYS)}")
    expected = {"type", *_KEYS[kind]}
    # A missing "villain" means no Villain, as null does: typed clients leave unset fields out.
    wire = {**{k: None for k in _NULLABLE.get(kind, ())}, **wire}
    missing = sorted(expected - set(wire))
    extra = sorted(set(wire) - expected)
    if missing or extra:
        raise _fail(
            seat,
            f"a {kind!r} action has keys {sorted(expected)}; missing {missing}, unexpected {extra}",
        )
    match kind:
        case "pass":
            return Pass()
        case "stop":
            return PlayStop()
        case "roll":
            engineer = wire["engineer"]
            if not isinstance(engineer, bool):
                raise _fail(
                    seat, f"'engineer' of a 'roll' action must be true or false, got {engineer!r}"
                )
            crew = _enum(seat, wire, "crew", CrewMode)
            return Roll(crew, _int(seat, wire, "villain", nullable=True), engineer)
        case "buy_cards":
            return BuyCards(_int(seat, wire, "villain", nullable=True))
        case "buy":
            return Buy(_int(seat, wire, "count") or 0)
        case "buy_car":
            return BuyCar()
        case "accept":
            return Accept()
        case "car":
            return PickCar(_enum(seat, wire, "car", Car))
        case "discard":
            return Discard(_enum(seat, wire, "card", Crew))
        case "space":
            return PickSpace(_int(seat, wire, "space") or 0)
        case "contract":
            contract = wire["contract"]
            if not isinstance(contract, str) or not contract:
                raise _fail(seat, f"'contract' must be a contract id string, got {contract!r}")
            return PickContract(contract)
        case _:
            return PickSeat(_int(seat, wire, "seat") or 0)
