"""A match told as a story: every public event of a step as a sentence naming the bots, and the
score of every seat after each step.

Sentences are plain text (the viewer puts them in with `textContent`). Each game has a table
kind -> template; a test walks the engines' sources and checks that every kind they can emit has
a template. In a template, `{key}` is the value, `{@key}` a seat's bot name, `{$key}` money,
`{*key}` a list, `{#key}` a list of seats, `{%key}` a per-seat list of money ("alice $12,
bob $3"), `{&key}` a per-seat list of numbers, `{^key}` a space as the map labels it and
`{~key}` a note in brackets, left out when it only repeats the event's kind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from engines.crossing.view import board_json

HART: dict[str, str] = {
    "setup": "The match starts: {@first_sheriff} is the first sheriff; purses {%money}.",
    "deal": "Cards are dealt: {&counts} cards.",
    "reshuffle": "The discard pile ({count} cards) is shuffled into a new deck.",
    "turn": "Round {round}, turn {turn}: {@sheriff} is the sheriff.",
    "pack": "{@seat} packs {count} card(s) into the suitcase.",
    "declare": "{@seat} declares {count} {good}.",
    "stow": "Suitcases are closed: {&counts} cards.",
    "pass": "{@seat} passes ({step}).",
    "inspect": "{@sheriff} inspects {@seat} ({control}).",
    "offer": "{@seat} offers {$amount}.",
    "no_deal": "{@seat} ends the negotiation: the suitcase will be opened.",
    "bribe": "{@seat} bribes {@sheriff} with {$amount}; the suitcase stays shut.",
    "open": (
        "{@sheriff} opens {@seat}'s suitcase (declared {declared_count} {declared_good}): "
        "{*goods}; kept {*kept}, confiscated {*discarded}; penalty {$penalty_due} "
        "(paid {$penalty_paid}), compensation {$compensation}."
    ),
    "seize": "{@sheriff} seizes {taken_count} card(s) from {@seat} and returns {returned_count}.",
    "seized": "{@sheriff} took {*taken} from {@seat}'s suitcase ({*goods}).",
    "keep": "{@seat} keeps {count} card(s).",
    "sell": "{@seat} sells {*goods} for {$income}.",
    "round_end": "Round {round} ends: {%money}.",
    "poorest": "Poorest: {#seats}; {@chooser} chooses the next sheriff.",
    "appoint": "{@seat} appoints {@sheriff} as sheriff.",
    "final_sale": "Final sale of {good} (at most {cap}): held {&held}; income {%incomes}.",
    "game_over": "Game over: {%money}.",
}

CROSSING: dict[str, str] = {
    "first_player_roll": "Rolls for the first player: {totals}.",
    "setup_roll": "{@seat} rolls {die} and takes a {car} car.",
    "turn": "Turn {turn}: {@seat} to play (extra {extra}).",
    "extra_turn": "{@seat} gets an extra turn.",
    "turn_lost": "{@seat} loses the turn (played by {@by}).",
    "rolled": "{@seat} rolls {*dice} (crew die: {crew}).",
    "special_roll": "{@seat} rolls {*dice} for {why} (attempt {attempt}).",
    "moved": "{@seat} moves to {^to}{~how}.",
    "crew_offer": "{@seat} is offered crew: die {die}, most {most}.",
    "train_shop": "{@seat} visits the train shop (die {die}).",
    "control_tower": "{@seat} uses the control tower: {@target} goes to {^to}.",
    "depot": "{@seat} takes {$amount} from the depot (refilled to {$refill}).",
    "car_gained": "{@seat} gains a {car} car ({why}).",
    "car_picked_up": "{@seat} picks up a {car} car at {^space}.",
    "car_dropped": "{@seat} drops a {car} car at {^space} ({why}).",
    "car_sold": "{@seat} sells a {car} car for {$price} ({why}).",
    "yard_empty": "{@seat} finds no {car} car in the yard ({why}).",
    "card_played": "{@seat} plays {card} ({why}).",
    "drew": "{@seat} draws {count} card(s) ({why}).",
    "drew_cards": "{@seat} draws {*cards}.",
    "reshuffled": "The crew piles are reshuffled: {*piles} cards.",
    "buys_instead": "{@seat} buys instead.",
    "engineer": "{@seat}'s engineer: {used}.",
    "engineer_declared": "{@seat} declares an engineer.",
    "duel": "Duel ({why}): {@attacker} against {@defender}, rolls {*rolls}.",
    "contract_taken": "{@seat} takes contract {contract} for {$price} ({why}).",
    "contract_moved": "{@seat} moves contract {contract} from {@owner}.",
    "contract_returned": "{@seat} returns contract {contract} ({why}).",
    "contract_sold": "{@seat} sells contract {contract} for {$price}.",
    "double_cross": "{@seat} double-crosses {@owner} for contract {contract}.",
    "customer_satisfied": "{@seat} satisfies a customer.",
    "no_effect": "Nothing happens to {@seat}: {why}.",
    "paid": "{@seat} pays {$amount} to {@to} ({why}).",
    "debt_forgiven": "{@seat}'s debt of {$amount} is forgiven.",
    "game_over": "Game over ({reason}): {@winner} wins.",
}

LOYANG: dict[str, str] = {
    "setup": "The match starts: {@start_player} starts, {@second_player} is second.",
    "round": "Round {round}: {@start_player} starts, {@second_player} is second.",
    "deal": "{count} card(s) dealt to each player; {@start_player} starts.",
    "hand": "{@seat} receives {*cards}.",
    "reveal": "{@seat} reveals {card}.",
    "play": "{@seat} plays {card}.",
    "take": "{@seat} takes {*cards} for {amount} cash, returning {*returned}.",
    "grid_buy": "{@seat} buys {card} from the grid (row {row}, column {col}) for {amount} cash.",
    "grid_refilled": "The grid is refilled with {*cards}.",
    "card_phase_end": "The card phase ends: {@start_player} starts, {@second_player} second.",
    "pick_opponent": "{@seat} picks {@target}.",
    "turn": "{@seat}'s turn.",
    "harvest": "{@seat} harvests {crops}.",
    "sow": "{@seat} sows {crop} on field {field}.",
    "buy": "{@seat} buys a {crop} for {amount} cash.",
    "buy_pair": "{@seat} buys two cards for {amount} cash.",
    "sell": "{@seat} sells a {crop} for {amount} cash.",
    "trade": "{@seat} trades {*crops} for a {crop} at stall {card}.",
    "serve": "{@seat} serves customer {card} for {amount} cash.",
    "deliver": "{@seat} delivers to {@target}'s customer {card} for {amount} cash.",
    "helper": "{@seat} plays helper {card}.",
    "keep": "{@seat} keeps {*cards} for {amount} cash.",
    "dismiss": "{@seat} dismisses {card}.",
    "loan": "{@seat} takes a loan of {amount} cash ({count} loans).",
    "upgrade": "{@seat} upgrades the storehouse for {amount} cash.",
    "store": "{@seat} stores a {crop}.",
    "cart_sold": "{@seat} sells the cart ({crops}) for {amount} cash.",
    "advance": "{@seat} moves {steps} step(s) along the Path to {position} for {amount} cash.",
    "end_turn": "{@seat} ends the turn.",
    "fine": "{@seat} pays a fine of {amount} for regular customer {card}.",
    "unhappy": "{@seat}'s regular customer {card} is unhappy.",
    "regular_gone": "{@seat}'s regular customer {card} leaves.",
    "reshuffle": "The deck is reshuffled ({count} cards).",
    "game_over": "Game over: Path {&positions}; cash {&cash}.",
}

WITHOUT_SEAT: dict[tuple[str, str], str] = {
    ("crossing", "paid"): "{@seat} pays {$amount} to the bank ({why}).",
    ("crossing", "game_over"): "Game over ({reason}): nobody reached Central Station.",
    ("hart", "poorest"): "Poorest: {#seats} (a tie); the seat left of the last sheriff starts.",
}
"""Templates for events whose seat field (`to`, `winner`, `chooser`) is None."""

SENTENCES: dict[str, dict[str, str]] = {"hart": HART, "crossing": CROSSING, "loyang": LOYANG}
"""Game -> event kind -> template."""

_MAYBE_NOBODY = ("to", "winner", "chooser")
_FIELD = re.compile(r"\{([@$*#%&^~]?)([a-z_]+)\}")


def name_of(seat: Any, names: Sequence[str]) -> str:
    """The bot in `seat`, named as on the page (a seat that is not one: "nobody")."""
    if not isinstance(seat, int) or isinstance(seat, bool):
        return "nobody" if seat is None else str(seat)
    if not 0 <= seat < len(names):
        return f"seat {seat}"
    name = names[seat]
    return f"{name} (seat {seat})" if names.count(name) > 1 else name


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value) or "nothing"
    return str(value)


def _money(value: Any) -> str:
    return f"${value}" if isinstance(value, int | float) else _text(value)


def places(view: Any) -> tuple[str, ...]:
    """Space index -> its label on the map ("O12, trade"), for games with a board of spaces."""
    board = view.get("board_name") if isinstance(view, dict) else None
    return _places(board) if isinstance(board, str) else ()


@cache
def _places(board: str) -> tuple[str, ...]:
    try:
        spaces = board_json(board)["spaces"]
    except KeyError:
        return ()
    assert isinstance(spaces, list)
    labels = []
    for s in spaces:
        assert isinstance(s, dict)
        name, kind = str(s["name"]), str(s["kind"]).replace("_", " ")
        plain = kind == "plain" or kind == name.lower()
        labels.append(name if plain else f"{name}, {kind}")
    return tuple(labels)


def _field(mark: str, value: Any, names: Sequence[str], game: str, where: Sequence[str]) -> str:
    if mark == "^":
        ok = isinstance(value, int) and 0 <= value < len(where)
        return where[value] if ok else f"space {value}"
    if mark == "@":
        return name_of(value, names)
    if mark == "$":
        return _money(value) if game != "loyang" else _text(value)
    if mark == "*":
        return _text(value) if isinstance(value, list) else _text([value])
    if mark == "#":
        return ", ".join(name_of(s, names) for s in value or []) or "nobody"
    if mark in "%&":
        shown = _money if mark == "%" else _text
        if not isinstance(value, list):
            return _text(value)
        return ", ".join(f"{name_of(s, names)} {shown(v)}" for s, v in enumerate(value))
    return _text(value)


def sentence(
    game: str, event: Mapping[str, Any], names: Sequence[str], where: Sequence[str] = ()
) -> str:
    """One public event as a sentence naming the bots (an unknown kind is still shown); `where`
    names the board's spaces (`places`)."""
    kind = str(event.get("kind", "?"))
    template = SENTENCES.get(game, {}).get(kind)
    if (game, kind) in WITHOUT_SEAT and None in (event.get(k, 0) for k in _MAYBE_NOBODY):
        template = WITHOUT_SEAT[game, kind]
    if template is None:
        details = ", ".join(f"{k} {_text(v)}" for k, v in event.items() if k != "kind")
        return f"{kind.replace('_', ' ')}: {details}" if details else kind.replace("_", " ")

    def fill(m: re.Match[str]) -> str:
        mark, key = m.group(1), m.group(2)
        if key not in event:
            return "—"
        if mark == "~":
            note = str(event[key])
            return "" if note == kind else f" (by {note.replace('_', ' ')})"
        return _field(mark, event[key], names, game, where)

    return _FIELD.sub(fill, template)


def sentences(game: str, view: Any, names: Sequence[str]) -> list[str]:
    """Every public event of a step's view, in order, as sentences."""
    events = view.get("events") if isinstance(view, dict) else None
    where = places(view)
    return [sentence(game, e, names, where) for e in events or [] if isinstance(e, dict)]


def scores(game: str, view: Any) -> list[float] | None:
    """Every seat's score as the public view shows it: Hart's money, Crossing's contracts, the
    Loyang Path; at game over the engine's final scores (its `game_over` event). None for a
    game without a score chart."""
    if not isinstance(view, dict) or not isinstance(view.get("players"), list):
        return None
    for e in view.get("events") or []:
        if isinstance(e, dict) and e.get("kind") == "game_over":
            final = e.get({"hart": "money", "loyang": "positions"}.get(game, ""))
            if isinstance(final, list):
                return [float(v) for v in final]
    players = view["players"]
    if game == "hart":
        return [float(p.get("money", 0)) for p in players]
    if game == "crossing":
        return [float(len(p.get("contracts") or [])) for p in players]
    if game == "loyang":
        return [float(p.get("position", 0)) for p in players]
    return None


SCORE_NAMES = {"hart": "money", "crossing": "contracts", "loyang": "Path"}
"""What each game's score chart shows."""
