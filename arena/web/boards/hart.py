"""Hart an der Grenze: stalls, money, suitcase counts; declarations, inspections, bribes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import escape

from arena.web.boards import colour, counts, seat_tag


def _goods(goods: Sequence[str]) -> str:
    return ", ".join(escape(g) for g in goods) or "nothing"


def board(view: dict[str, Any], names: Sequence[str]) -> str:
    """Every player's stall, purse and suitcase, and the phase (`arena.web.story` tells the
    events)."""
    sheriff = view.get("sheriff")
    acting = set(view.get("to_act") or [])
    stalls = []
    for p in view["players"]:
        seat = p["seat"]
        role = "sheriff" if seat == sheriff else "trader"
        declared = p.get("declaration")
        declaration = (
            f"declared {declared['count']} {escape(declared['good'])}"
            if declared
            else "no declaration"
        )
        bars = "".join(
            f"<rect x='{i * 9}' y='0' width='7' height='14' rx='2' fill='{colour(seat)}'/>"
            for i in range(min(p["suitcase"], 12))
        )
        stalls.append(
            f"<div class='stall{' acting' if seat in acting else ''}' style='--c:{colour(seat)}'>"
            f"<div class='stall-head'>{seat_tag(seat, names)} <small>{role}</small></div>"
            f"<div class='money'>${p['money']}</div>"
            f"<div>hand <b>{p['hand']}</b> · suitcase <b class='suitcase'>{p['suitcase']}</b>"
            f" <svg class='cards' width='110' height='14' aria-hidden='true'>{bars}</svg></div>"
            f"<div>{declaration}</div>"
            f"<div>stall: <b>{p['behind']}</b> legal · <b>{p['under']}</b> contraband</div>"
            "</div>"
        )
    bribe = view.get("bribe")
    talk = ""
    if bribe:
        offers = ", ".join(f"{seat_tag(o['seat'], names)} ${o['amount']}" for o in bribe["offers"])
        talk = (
            f"<div class='bribe'>negotiation: {seat_tag(bribe['seat'], names)} and sheriff "
            f"{seat_tag(bribe['sheriff'], names)} ({escape(bribe['control'])}): "
            f"{offers or 'no offer yet'}</div>"
        )
    return (
        f"<div class='board hart'><div class='status'>round {view['round']}/{view['rounds']}, "
        f"turn {view['turn']}/{view['turns_per_round']} · phase <b>{escape(view['phase'])}</b>"
        f" · deck {view['deck']} · discard {counts(view['discard'])}</div>"
        f"<div class='stalls'>{''.join(stalls)}</div>{talk}</div>"
    )
