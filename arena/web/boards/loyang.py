"""At the Gates of Loyang: each player's fields, cart, storehouse, stalls and the Path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import escape

from arena.web.boards import colour, counts, seat_tag

PATH_STEPS = 20
CROP_COLOURS = {
    "wheat": "#e9c46a",
    "pumpkin": "#f4a261",
    "turnip": "#b5838d",
    "cabbage": "#90be6d",
    "bean": "#6d597a",
    "leek": "#2a9d8f",
}


def _field(f: dict[str, Any]) -> str:
    crop = f.get("crop")
    fill = CROP_COLOURS.get(crop or "", "#eee")
    dots = "".join(
        f"<rect x='{(i % 5) * 9}' y='{(i // 5) * 9}' width='7' height='7' "
        f"fill='{fill if i < f['count'] else '#fff'}' stroke='#999' stroke-width='0.5'/>"
        for i in range(f["size"])
    )
    rows = (f["size"] + 4) // 5
    return (
        f"<span class='field'><svg width='45' height='{rows * 9}' aria-hidden='true'>{dots}</svg>"
        f"<small>{escape(f['id'])}: {f['count']} {escape(crop or 'empty')}</small></span>"
    )


def _path_x(position: int, seat: int) -> int:
    return 17 + (min(max(position, 1), PATH_STEPS) - 1) * 26 + (seat % 2) * 8 - 4


def _path(players: list[dict[str, Any]], names: Sequence[str]) -> str:
    width = 26 * PATH_STEPS + 10
    cells = "".join(
        f"<rect x='{5 + i * 26}' y='14' width='24' height='20' rx='3' class='path'/>"
        f"<text x='{17 + i * 26}' y='28'>{i + 1}</text>"
        for i in range(PATH_STEPS)
    )
    marks = "".join(
        f"<circle class='pawn' cx='{_path_x(p['position'], s)}' cy='{8 + (s // 2) * 32}' r='6' "
        f"fill='{colour(s)}'><title>"
        f"{escape(names[s] if s < len(names) else s)}: {p['position']}</title></circle>"
        for s, p in enumerate(players)
    )
    return (
        f"<svg class='path-track' viewBox='0 0 {width} 48' role='img' "
        f"aria-label='Path of Prosperity'>{cells}{marks}</svg>"
    )


def board(view: dict[str, Any], names: Sequence[str]) -> str:
    """The Path, then each player's farm, cart, storehouse and customers."""
    seats = []
    for s, p in enumerate(view["players"]):
        fields = "".join(_field(f) for f in p["fields"])
        customers = len(p.get("regulars") or []) + len(p.get("casuals") or [])
        seats.append(
            f"<div class='stall' style='--c:{colour(s)}'><div class='stall-head'>"
            f"{seat_tag(s, names)} <small>Path {p['position']}</small></div>"
            f"<div class='money'>{p['cash']} cash · {p['loans']} loans</div>"
            f"<div class='fields'>{fields}</div>"
            f"<div>cart: {counts(p.get('cart') or {})}</div>"
            f"<div>storehouse: {counts(p.get('storehouse') or {})}</div>"
            f"<div>hand <b>{p['hand_size']}</b> · stalls {len(p.get('stalls') or [])} · "
            f"customers {customers} · helpers {len(p.get('helpers') or [])}</div></div>"
        )
    return (
        f"<div class='board loyang'><div class='status'>round {view['round']} · phase "
        f"<b>{escape(str(view['phase']))}</b> · deck {view['deck']} · courtyard "
        f"{len(view.get('courtyard') or [])}</div>{_path(view['players'], names)}"
        f"<div class='stalls'>{''.join(seats)}</div></div>"
    )
