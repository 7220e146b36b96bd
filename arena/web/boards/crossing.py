"""Double Crossing: the track with every locomotive, each player's rack and contracts."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from typing import Any

from markupsafe import escape

from arena.web.boards import colour, counts, seat_tag
from engines.crossing.view import board_json

KIND_COLOURS = {
    "start": "#f4d35e",
    "central_station": "#f4d35e",
    "corner_station": "#ddd",
    "trade": "#a8dadc",
    "crew_cards": "#cdb4db",
    "yard": "#b7e4c7",
    "pay_taxes": "#f4a261",
    "derail": "#e76f51",
    "double_cross": "#e76f51",
}
SIZE = 520


@cache
def _layout(name: str) -> tuple[tuple[str, str, float, float, tuple[int, ...]], ...]:
    """(name, kind, x, y, next) per space: the outer loop on a ring, the rest on an inner one."""
    spaces: list[dict[str, Any]] = board_json(name)["spaces"]  # type: ignore[assignment]
    outer = [i for i, s in enumerate(spaces) if str(s["name"]).startswith("O")]
    inner = [i for i in range(len(spaces)) if i not in outer]
    at: dict[int, tuple[float, float]] = {}
    for ring, radius in ((outer, 0.44), (inner, 0.27)):
        for k, i in enumerate(ring):
            angle = 2 * math.pi * k / max(1, len(ring)) - math.pi / 2
            at[i] = (
                SIZE / 2 + radius * SIZE * math.cos(angle),
                SIZE / 2 + radius * SIZE * math.sin(angle),
            )
    return tuple(
        (str(s["name"]), str(s["kind"]), *at[i], tuple(s.get("next", ())))
        for i, s in enumerate(spaces)
    )


def defs(view: dict[str, Any]) -> str:
    """The static track, drawn once per page and placed in every step with `<use>`."""
    layout = _layout(view["board_name"])
    lines, cells, labels = [], [], []
    for name, kind, x, y, nxt in layout:
        for j in nxt:
            if 0 <= j < len(layout):
                lines.append(
                    f"<line x1='{x:.0f}' y1='{y:.0f}' x2='{layout[j][2]:.0f}' "
                    f"y2='{layout[j][3]:.0f}'/>"
                )
        fill = KIND_COLOURS.get(kind, "#fff")
        cells.append(
            f"<rect x='{x - 11:.0f}' y='{y - 11:.0f}' width='22' height='22' rx='4' "
            f"fill='{fill}'><title>{escape(name)}: {escape(kind)}</title></rect>"
        )
        labels.append(f"<text x='{x:.0f}' y='{y + 3:.0f}'>{escape(name)}</text>")
    # Presentation attributes, not CSS: stylesheet rules do not reach into a <use> copy.
    return (
        "<svg class='defs' width='0' height='0' aria-hidden='true'><defs><g id='crossing-track'>"
        f"<g stroke='#aab4bd' stroke-width='3'>{''.join(lines)}</g>"
        f"<g stroke='#8795a1' stroke-width='1'>{''.join(cells)}</g>"
        "<g font-size='7' text-anchor='middle' fill='#1d2731' font-family='sans-serif'>"
        f"{''.join(labels)}</g></g></defs></svg>"
    )


def _track(view: dict[str, Any], names: Sequence[str]) -> str:
    layout = _layout(view["board_name"])
    locos = []
    for p in view["players"]:
        seat, pos = p["seat"], p["position"]
        if not 0 <= pos < len(layout):
            continue
        x, y = layout[pos][2], layout[pos][3]
        dx = (seat % 3 - 1) * 9
        dy = -18 - (seat // 3) * 9
        locos.append(
            f"<circle class='loco' data-seat='{seat}' cx='{x + dx:.0f}' cy='{y + dy:.0f}' r='7' "
            f"fill='{colour(seat)}'><title>{escape(names[seat] if seat < len(names) else seat)}"
            f"</title></circle>"
        )
    for loose in view.get("loose_cars") or []:
        pos = loose["space"]
        if 0 <= pos < len(layout):
            x, y = layout[pos][2], layout[pos][3]
            locos.append(
                f"<rect x='{x + 8:.0f}' y='{y + 8:.0f}' width='8' height='6' fill='#555'/>"
            )
    return (
        f"<svg class='track' viewBox='0 0 {SIZE} {SIZE}' role='img' aria-label='track'>"
        f"<use href='#crossing-track'/>{''.join(locos)}</svg>"
    )


def board(view: dict[str, Any], names: Sequence[str]) -> str:
    """The track, then a rack of cars and the contracts of each player."""
    turn = view.get("turn") or {}
    layout = _layout(view["board_name"])

    def where(position: int) -> str:
        return layout[position][0] if 0 <= position < len(layout) else f"space {position}"

    racks = []
    for p in view["players"]:
        seat = p["seat"]
        contracts = " ".join(f"<span class='chip'>{escape(c)}</span>" for c in p["contracts"])
        racks.append(
            f"<div class='stall{' acting' if seat == turn.get('active') else ''}' "
            f"style='--c:{colour(seat)}'><div class='stall-head'>{seat_tag(seat, names)}</div>"
            f"<div class='money'>${p['money']}</div>"
            f"<div>at <b>{escape(where(p['position']))}</b> · "
            f"crew cards <b>{p['hand_count']}</b></div><div>rack: {counts(p['cars'])}</div>"
            f"<div>contracts: {contracts or 'none'}</div></div>"
        )
    winner = view.get("winner")
    return (
        f"<div class='board crossing'><div class='status'>turn {turn.get('number', 0)} · active "
        f"{seat_tag(turn.get('active'), names)} · depot ${view.get('depot', 0)} · yards "
        f"{counts(view.get('yards') or {})}"
        f"{' · winner ' + seat_tag(winner, names) if winner is not None else ''}</div>"
        f"<div class='split'>{_track(view, names)}<div class='stalls'>{''.join(racks)}</div></div>"
        "</div>"
    )
