"""Readable Loyang logs: each step in words, boards after every harvest and at the end of a turn."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.render import Paint
from engines import Decision, Rules
from engines.loyang.board import final_position
from engines.loyang.cards import CROP_NAMES, CasualDef, FieldDef, HelperDef, RegularDef, StallDef
from engines.loyang.data import DATA
from engines.loyang.state import LoyangState, Phase, Player


def card_name(card_id: str) -> str:
    """A card id with a few words on what it is."""
    d = DATA.cards.get(card_id)
    if isinstance(d, HelperDef):
        return f"{card_id} ({d.name or 'helper'})"
    if isinstance(d, StallDef):
        return f"{card_id} (stall {_crops(d.stock)})"
    if isinstance(d, RegularDef):
        return f"{card_id} (regular {'+'.join(c.wire for c in d.crops)})"
    if isinstance(d, CasualDef):
        return f"{card_id} (casual {'+'.join(c.wire for c in d.crops)} for {d.payout})"
    if isinstance(d, FieldDef):
        return f"{card_id} (common field {d.size})"
    return card_id


def _crops(values: tuple[int, ...]) -> str:
    shown = [f"{CROP_NAMES[i]}{'' if n == 1 else f' x{n}'}" for i, n in enumerate(values) if n]
    return ", ".join(shown) or "-"


def describe(wire: Mapping[str, Any]) -> str:
    """An action's wire form in words."""
    kind = wire["type"]
    if kind == "setup_sow":
        return f"sows {wire['crop']} on the home field"
    if kind == "play":
        return f"plays {card_name(wire['card'])} to the courtyard"
    if kind == "take":
        return f"takes {card_name(wire['courtyard'])} and {card_name(wire['hand'])}"
    if kind == "grid_buy":
        return f"buys the grid card at row {wire['row'] + 1}, column {wire['col'] + 1}"
    if kind == "pick_opponent":
        return f"picks seat {wire['seat']} as opponent"
    if kind in ("sow", "buy", "sell", "store"):
        where = f" on {wire['field']}" if kind == "sow" else ""
        return f"{kind}s {wire['crop']}{where}"
    if kind == "trade":
        return f"trades {'+'.join(wire['give'])} for {wire['crop']} at {wire['stall']}"
    if kind == "use_helper":
        extra = [f"{k} {v}" for k, v in wire.items() if k not in ("type", "card")]
        return f"uses {card_name(wire['card'])}" + (f" ({', '.join(extra)})" if extra else "")
    if kind == "dismiss":
        return f"dismisses {card_name(wire['card'])}"
    if kind in ("deliver", "serve"):
        return f"{'delivers to' if kind == 'deliver' else 'serves'} {card_name(wire['customer'])}"
    if kind == "keep":
        return "keeps " + (" in front of ".join(map(card_name, wire["cards"])) or "nothing")
    if kind == "advance":
        return f"moves {wire['steps']} step(s) on the Path"
    return {
        "reveal": "reveals the deck's top card into the courtyard",
        "end_turn": "ends the turn",
        "buy_pair": "buys a card pair",
        "loan": "takes a loan",
        "upgrade": "upgrades the storehouse",
        "finish_storing": "sells what is left on the cart",
        "finish_scoring": "stays on the Path",
    }.get(kind, str(dict(wire)))


def board_line(player: Player) -> str:
    """Fields, cart and storehouse of one player, with money and Path position."""
    fields = " ".join(
        f"{f.id}[{f.crop.wire} {f.count}]" if f.crop is not None else f"{f.id}[empty]"
        for f in player.fields
    )
    return (
        f"pos {player.position} cash {player.cash} loans {player.loans} | fields {fields or '-'}"
        f" | cart {_crops(player.cart)} | storehouse {_crops(player.store)}"
    )


def step_lines(
    rules: Rules[Any, Any, Any],
    before: LoyangState,
    decision: Decision,
    joint: Mapping[int, Any],
    after: LoyangState,
    paint: Paint,
    events: object = (),  # the render interface passes the decision's events; unused here
) -> list[str]:
    """The log lines of one decision."""
    lines = []
    for seat, action in sorted(joint.items()):
        wire: Any = rules.dump_action(action)
        cash = f"cash {before.players[seat].cash}->{after.players[seat].cash}"
        change = "" if before.players[seat].cash == after.players[seat].cash else f"  ({cash})"
        lines.append(
            f"{paint.dim(f'#{decision.number:<4}')} {paint.seat(seat)} {describe(wire)}{change}"
        )
    ended = {t.seat for t in before.turns} - {t.seat for t in after.turns}
    if after.round != before.round:
        ended = {t.seat for t in before.turns}
    for seat in sorted(ended):
        lines.append(f"      {paint.seat(seat)} ends its turn: {board_line(after.players[seat])}")
    if after.round != before.round and after.phase is not Phase.OVER:
        lines.append(paint.bold(f"== Round {after.round}: after the harvest"))
        for seat, player in enumerate(after.players):
            lines.append(f"   {paint.seat(seat)} {board_line(player)}")
    return lines


def final_lines(rules: Rules[Any, Any, Any], final: LoyangState, paint: Paint) -> list[str]:
    """Every board at the end, and the final Path positions after loans."""
    lines = [paint.bold("== Game over")]
    for seat, player in enumerate(final.players):
        lines.append(f"   {paint.seat(seat)} {board_line(player)}")
        lines.append(
            f"      final position {final_position(player)} "
            f"(Path {player.position} - {player.loans} loan(s))"
        )
    if final.config.solo:
        score = final_position(final.players[0])
        rating = "no rating"
        for space, name in DATA.constants.solo_ratings:
            if score >= space:
                rating = name
        lines.append(f"   solo rating: {rating}")
    return lines
