"""What each seat may see (`observe`), and re-dealing what it may not (`scramble`)."""

from __future__ import annotations

import marshal
from dataclasses import replace

from engines.api import Json, Seat
from engines.crossing.data import BOARDS, CARS, CREWS, Board
from engines.crossing.state import CrossingState, Label, Player, Prompt
from engines.rng import Rng


def _static(board: Board) -> dict[str, Json]:
    """The board section of every view (see `engines.crossing.wire`)."""
    hosts = {cid: s.index for s in board.spaces for cid in s.companies}
    spaces: list[Json] = []
    for s in board.spaces:
        entry: dict[str, Json] = {
            "name": s.name,
            "kind": s.kind.value,
            "next": list(s.next),
        }
        if s.amount:
            entry["amount"] = s.amount
        if s.car is not None:
            entry["car"] = s.car.value
        if s.companies:
            entry["companies"] = list(s.companies)
        spaces.append(entry)
    return {
        "name": board.name,
        "title": board.title,
        "sourced": board.sourced,
        "start": board.start,
        "central": board.central,
        "win_contracts": board.win_contracts,
        "rack_limit": board.rack,
        "hand_size": board.hand,
        "contracts_per_visit": board.contracts_per_visit,
        "special_rolls": board.special_rolls,
        "money": {
            "step": board.money_step,
            "start": board.start_money,
            "depot_refill": board.depot_refill,
            "crew_card_price": board.crew_card_price,
            "passenger_fee": board.passenger_fee,
            "car_sale_percent": board.car_sale_percent,
        },
        "cars": {
            car.value: {
                "count": board.car_count[i],
                "price": board.car_price[i],
                "sale_price": board.car_sale_price(car),
                "faces": [f + 1 for f, c in enumerate(board.face_car) if c is car],
            }
            for i, car in enumerate(CARS)
        },
        "companies": [
            {"id": cid, "name": name, "space": hosts[cid]} for cid, name in board.companies
        ],
        "contracts": [
            {
                "id": c.id,
                "company": c.company,
                "cars": {car.value: n for car, n in zip(CARS, c.cars, strict=True) if n},
                "price": c.price,
            }
            for c in board.contracts
        ],
        "spaces": spaces,
    }


_STATIC_BYTES = {name: marshal.dumps(_static(board)) for name, board in BOARDS.items()}
"""Per packaged board, its static section marshalled once; each view loads a fresh copy
(`board_json`): dicts and lists are built anew at every load. About 2.6x cheaper than parsing
the section's JSON text (64 against 170 us a copy, which a third of Crossing's views carry)."""


CAR_NAMES = tuple(car.value for car in CARS)
CREW_NAMES = tuple(card.value for card in CREWS)


def _cars(rack: tuple[int, ...]) -> dict[str, Json]:
    return dict(zip(CAR_NAMES, rack, strict=True))


def _decision(prompt: Prompt | None) -> Json:
    if prompt is None:
        return None
    out: dict[str, Json] = {
        "label": prompt.label.value,
        "seats": list(prompt.seats),
        "about": prompt.seat,
    }
    label = prompt.label
    if label is Label.BUY_CREW:
        out["max"] = prompt.value
    elif label is Label.TRADE:
        out["space"], out["done"] = prompt.space, prompt.value
    elif label is Label.RAISE_CASH:
        out["debt"], out["payee"] = prompt.value, None if prompt.space < 0 else prompt.space
    if label in (Label.ROUTE, Label.ROUNDHOUSE, Label.TOWER_SPACE):
        out["spaces"] = list(prompt.spaces)
    if label is Label.ROUTE:
        out["passes_central"] = list(prompt.passes)
    if label is Label.TOWER_SPACE:
        out["target"] = prompt.value
    return out


def board_json(name: str) -> dict[str, Json]:
    """A fresh copy of the static section of a packaged board (`_STATIC_BYTES`)."""
    data: dict[str, Json] = marshal.loads(_STATIC_BYTES[name])
    return data


def acts_on_board(state: CrossingState, viewer: Seat | None) -> bool:
    """Whether `viewer` must decide now, other than only whether to play a Stop."""
    prompt = state.prompt
    if prompt is None or viewer is None or viewer not in prompt.seats:
        return False
    return prompt.label is not Label.DECLARE or viewer == prompt.seat


def observe(state: CrossingState, viewer: Seat | None) -> dict[str, Json]:
    """The view of `viewer` (None = spectator); its keys are documented in `wire`.

    Its "events" are not built here: the match driver adds them from what `step` returned.
    """
    board = state.board
    ids = board.contract_ids
    settings = state.settings
    turn = state.turn
    return {
        "seat": viewer,
        "board_name": board.name,
        "board": board_json(board.name) if acts_on_board(state, viewer) else None,
        "options": {
            "round_cap": settings.round_cap,
            "extra_turn_cap": settings.extra_turn_cap,
            "win_central": "exact" if settings.win_exact else "reach",
            "stops_per_turn": settings.stops_per_turn,
            "duel_tie": "defender" if settings.tie_to_defender else "reroll",
            "loose_cars_take": "all" if settings.take_all_loose else "one",
            "villain_choice": "villain" if settings.villain_chooses else "victim",
            "contract_sale_percent": settings.contract_sale_percent,
            "connections_cars": settings.connections_cars,
        },
        "turn": {
            "number": state.turns,
            "round": (state.regular_turns - 1) // len(state.players) + 1,
            "active": turn.active,
            "chain": turn.chain,
            "crew": turn.crew.value,
            "engineer": turn.engineer,
            "stops": turn.stops,
        },
        "decision": _decision(state.prompt),
        "players": [
            {
                "seat": s,
                "position": p.position,
                "money": p.money,
                "cars": _cars(p.rack),
                "contracts": [ids[i] for i in p.contracts],
                "hand_count": sum(p.hand),
            }
            for s, p in enumerate(state.players)
        ],
        "hand": None
        if viewer is None
        else dict(zip(CREW_NAMES, state.players[viewer].hand, strict=True)),
        "yards": _cars(state.yards),
        "stacks": {
            cid: [ids[i] for i in stack]
            for (cid, _), stack in zip(board.companies, state.stacks, strict=True)
        },
        "loose_cars": [
            {"space": i, "cars": [car.value for car in cars]}
            for i, cars in enumerate(state.loose)
            if cars
        ],
        "depot": state.depot,
        "crew_piles": [len(p) for p in state.piles],
        "discard": dict(zip(CREW_NAMES, state.discard, strict=True)),
        "winner": state.winner,
    }


def scramble(state: CrossingState, viewer: Seat | None, rng: Rng) -> CrossingState:
    """Re-deal the other seats' hands and the piles' order, keeping every count."""
    others = [s for s in range(len(state.players)) if s != viewer]
    pool = [i for s in others for i, n in enumerate(state.players[s].hand) for _ in range(n)]
    pool += [card for pile in state.piles for card in pile]
    pool = list(rng.shuffle(pool))
    players = list(state.players)
    for s in others:
        size = sum(players[s].hand)
        dealt, pool = pool[:size], pool[size:]
        hand = tuple(dealt.count(i) for i in range(len(CREWS)))
        players[s] = Player(
            players[s].position, players[s].money, players[s].rack, hand, players[s].contracts
        )
    piles = []
    for pile in state.piles:
        piles.append(tuple(pool[: len(pile)]))
        pool = pool[len(pile) :]
    return replace(state, players=tuple(players), piles=tuple(piles))
