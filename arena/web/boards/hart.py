"""Hart an der Grenze: stalls, money, suitcase counts; declarations, inspections, bribes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import escape

from arena.web.boards import colour, counts, seat_tag


def _goods(goods: Sequence[str]) -> str:
    return ", ".join(escape(g) for g in goods) or "nothing"


def event_line(e: dict[str, Any], names: Sequence[str]) -> str | None:
    """One public event as a sentence, or None for bookkeeping events."""

    def s(key: str) -> str:
        return seat_tag(e.get(key), names)

    kind = e.get("kind")
    if kind == "declare":
        return f"{s('seat')} declares {e['count']} {escape(e['good'])}"
    if kind == "inspect":
        return f"{s('sheriff')} inspects {s('seat')} ({escape(e['control'])})"
    if kind == "offer":
        return f"{s('seat')} offers ${e['amount']}"
    if kind == "bribe":
        return f"{s('seat')} bribes {s('sheriff')} with ${e['amount']}"
    if kind == "no_deal":
        return f"{s('seat')} ends the negotiation: the suitcase opens"
    if kind == "open":
        honest = "honest" if not e.get("penalty_due") else f"penalty ${e['penalty_due']}"
        return f"{s('sheriff')} opens {s('seat')}'s suitcase: {_goods(e['goods'])} ({honest})"
    if kind == "pass":
        return f"{s('seat')} passes ({escape(e['step'])})"
    if kind == "pack":
        return f"{s('seat')} packs {e['count']} card(s)"
    if kind == "seize":
        return f"{s('sheriff')} seizes {e['taken_count']} card(s) from {s('seat')}"
    if kind == "sell":
        return f"{s('seat')} sells {_goods(e['goods'])} for ${e['income']}"
    if kind == "turn":
        return f"round {e['round']}, turn {e['turn']}: sheriff {s('sheriff')}"
    if kind == "appoint":
        return f"{s('seat')} appoints {s('sheriff')} sheriff"
    if kind == "game_over":
        return "game over: " + ", ".join(f"${m}" for m in e["money"])
    return None


def board(view: dict[str, Any], names: Sequence[str]) -> str:
    """Every player's stall, purse and suitcase, the phase and the last decision's events."""
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
    events = [line for e in view.get("events") or [] if (line := event_line(e, names))]
    return (
        f"<div class='board hart'><div class='status'>round {view['round']}/{view['rounds']}, "
        f"turn {view['turn']}/{view['turns_per_round']} · phase <b>{escape(view['phase'])}</b>"
        f" · deck {view['deck']} · discard {counts(view['discard'])}</div>"
        f"<div class='stalls'>{''.join(stalls)}</div>{talk}"
        f"<ul class='events'>{''.join(f'<li>{line}</li>' for line in events)}</ul></div>"
    )
