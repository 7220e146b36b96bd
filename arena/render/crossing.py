"""Double Crossing match logs: what each decision did, and a coloured line of the whole board."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.render import Paint
from engines import Decision, Event, Json, Rules
from engines.crossing.data import Board, Kind
from engines.crossing.state import CrossingState

SYMBOL = {
    Kind.START: ">",
    Kind.CENTRAL: "@",
    Kind.PLAIN: ".",
    Kind.GOVT_CONTRACT: "g",
    Kind.TRAIN_SHOP: "h",
    Kind.TRADE: "T",
    Kind.ROLL_AGAIN: "+",
    Kind.STOP: "s",
    Kind.PAY_TAXES: "$",
    Kind.YARD: "y",
    Kind.CREW_CARDS: "c",
    Kind.CORNER_STATION: "#",
    Kind.DERAIL: "d",
    Kind.DOUBLE_CROSS: "x",
    Kind.ROUNDHOUSE: "r",
    Kind.CONTROL_TOWER: "w",
    Kind.DEPOT: "p",
    Kind.DISSATISFIED: "u",
    Kind.CONNECTIONS: "n",
}
"""One character per kind of space on the board line."""


def board_line(state: CrossingState, paint: Paint) -> str:
    """Every space in board order, each locomotive as its seat number in the seat's colour.

    A gap (" | ") marks where one track ends and the next begins in the board's order.
    """
    board = state.board
    here: dict[int, list[int]] = {}
    for seat, player in enumerate(state.players):
        here.setdefault(player.position, []).append(seat)
    out: list[str] = []
    run = ""  # consecutive empty spaces, painted dim in one piece
    for space in board.spaces:
        if space.index and space.index not in board.spaces[space.index - 1].next:
            run += " | "
        seats = here.get(space.index)
        if seats or state.loose[space.index]:
            out.append(paint.dim(run))
            run = ""
            if seats:
                out.append("".join(paint.seat(s, str(s)) for s in seats))
            else:
                out.append(paint.bold("*"))
        else:
            run += SYMBOL[space.kind]
    out.append(paint.dim(run))
    return "       " + "".join(out)


def _space(board: Board, index: Json) -> str:
    if not isinstance(index, int):
        return str(index)
    space = board.spaces[index]
    return f"{space.name} ({space.kind.value.replace('_', ' ')})"


def _who(paint: Paint, seat: Json) -> str:
    return paint.seat(seat) if isinstance(seat, int) else "the bank"


def _event(board: Board, e: Mapping[str, Any], paint: Paint) -> str | None:
    """One event in words, or None for events the log leaves out."""
    kind = e["kind"]
    who = _who(paint, e.get("seat"))
    said: dict[str, Callable[[], str]] = {
        "turn": lambda: (
            paint.bold(f"turn {e['turn']}:") + f" {who}" + (" (extra turn)" if e["extra"] else "")
        ),
        "rolled": lambda: (
            f"{who} rolls {'+'.join(map(str, e['dice']))}"
            + ("" if e["crew"] == "none" else f" ({e['crew'].replace('_', ' + ')})")
        ),
        "moved": lambda: (
            f"{who} -> {_space(board, e['to'])}"
            + ("" if e["how"] == "moved" else f" by {e['how'].replace('_', ' ')}")
        ),
        "card_played": lambda: f"{who} plays {e['card'].replace('_', ' ')} ({e['why']})",
        "duel": lambda: (
            f"duel ({e['why'].replace('_', ' ')}): {paint.seat(e['attacker'])} "
            f"{e['rolls'][0]} vs {paint.seat(e['defender'])} {e['rolls'][1]}"
        ),
        "turn_lost": lambda: f"{who} loses the turn to {paint.seat(e['by'])}'s Stop",
        "car_gained": lambda: f"{who} takes a {e['car']} car ({e['why'].replace('_', ' ')})",
        "car_picked_up": lambda: f"{who} picks up the {e['car']} car lying here",
        "car_dropped": lambda: f"{who} drops a {e['car']} car ({e['why']})",
        "car_sold": lambda: f"{who} sells a {e['car']} car for {e['price']}",
        "yard_empty": lambda: f"no {e['car']} car left for {who}",
        "paid": lambda: f"{who} pays {e['amount']} to {_who(paint, e['to'])}",
        "debt_forgiven": lambda: f"{who} cannot pay {e['amount']}: forgiven",
        "contract_taken": lambda: (
            f"{who} takes contract {e['contract']} for {e['price']} ({e['why']})"
        ),
        "contract_returned": lambda: f"{who} gives back contract {e['contract']}",
        "contract_sold": lambda: f"{who} sells contract {e['contract']} for {e['price']}",
        "double_cross": lambda: (
            f"{who} double-crosses {paint.seat(e['owner'])} for {e['contract']}"
        ),
        "contract_moved": lambda: f"{who} wins {e['contract']} from {paint.seat(e['owner'])}",
        "engineer": lambda: (
            f"{who}'s Engineer "
            + ("gives another turn" if e["used"] else "is refused and comes back")
        ),
        "depot": lambda: f"{who} collects {e['amount']} at the depot",
        "special_roll": lambda: (
            f"{who} {e['why'].replace('_', ' ')} roll {e['attempt']}: {e['dice'][0]}+{e['dice'][1]}"
        ),
        "crew_offer": lambda: f"{who} may buy up to {e['most']} crew card(s) (die {e['die']})",
        "drew": lambda: f"{who} draws {e['count']} crew card(s)",
        "no_effect": lambda: f"nothing happens: {e['why']}",
        "game_over": lambda: paint.bold(
            f"game over ({e['reason'].replace('_', ' ')})"
            + ("" if e["winner"] is None else f": {paint.seat(e['winner'])} wins")
        ),
    }
    render = said.get(kind)
    return None if render is None else render()


def step_lines(
    rules: Rules[Any, Any, Any],
    before: CrossingState,
    decision: Decision,
    joint: Mapping[int, Any],
    after: CrossingState,
    paint: Paint,
    produced: Sequence[Event] = (),
) -> list[str]:
    """The log lines of one decision: the choices made, what followed, and the board.

    What followed is told from `produced` (the decision's events, `Move.events`): the public
    ones, as the public view shows them.
    """
    acts = []
    board = after.board
    for seat, action in sorted(joint.items()):
        wire: Any = rules.dump_action(action)
        if decision.label == "declare" and seat != before.turn.active and wire["type"] == "pass":
            continue  # a seat that does not play Stop says nothing
        if "space" in wire:
            wire["space"] = _space(board, wire["space"])
        shown = [f"{k}={v}" for k, v in wire.items() if k != "type" and v not in (None, False)]
        detail = ", ".join(s for s in shown if s != "crew=none")
        acts.append(f"{paint.seat(seat)} {wire['type']}" + (f" {detail}" if detail else ""))
    lines = [f"#{decision.number:<4} {decision.label:<12} " + "; ".join(acts)]
    events = [e.to_json() for e in produced if e.is_visible_to(None)]
    for e in events:
        text = _event(board, e, paint)
        if text is not None:
            lines.append(f"        {text}")
    if any(e["kind"] == "moved" for e in events):
        lines.append(board_line(after, paint))
    return lines


def final_lines(rules: Rules[Any, Any, Any], final: CrossingState, paint: Paint) -> list[str]:
    """Where everyone ended, with their contracts, money and cars."""
    board = final.board
    lines = [paint.bold("Final position:"), board_line(final, paint)]
    for seat, player in enumerate(final.players):
        contracts = ", ".join(board.contract_ids[i] for i in player.contracts) or "none"
        cars = rules.observe(final, None)["players"][seat]["cars"]
        rack = ", ".join(f"{n} {car}" for car, n in cars.items() if n) or "no cars"
        lines.append(
            f"  {paint.seat(seat)}: {len(player.contracts)} contract(s) [{contracts}], "
            f"money {player.money}, {rack}, at {_space(board, player.position)}"
        )
    return lines
