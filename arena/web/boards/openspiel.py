"""OpenSpiel's games: the public observation in a <pre>, a drawn grid for board games, chess's
board from its FEN, the full final state at the end (as a card table for the poker games).

Only the public view comes in (`adapter.view(live, None)`): the observation string of a game of
perfect information, nothing for a game with hidden information until the end, then `final` (the
whole state) and `returns`. So a running match of leduc poker shows no card here, by
construction; tests/web/test_openspiel_board.py checks it step by step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import escape

from arena.web.boards import colour, openspiel_cards, openspiel_chess, seat_tag

CELL = 30
"""A grid cell's side in SVG units."""


@dataclass(frozen=True, slots=True)
class Grid:
    """How to read one game's observation as rows of cells, and how to draw each cell."""

    cells: str
    """Every character a row may hold; the first is the empty cell."""
    pieces: dict[str, str]
    """Piece character -> fill: a seat colour or a stone colour."""
    marks: bool = False
    """Draw X and O strokes instead of discs (tic-tac-toe)."""
    stones: bool = False
    """Stones on the lines' intersections, as in go (else pieces in the cells)."""


BLACK, WHITE = "#222", "#f4f1e8"
GRIDS = {
    "tic_tac_toe": Grid(".xo", {"x": colour(0), "o": colour(1)}, marks=True),
    "connect_four": Grid(".xo", {"x": colour(0), "o": colour(1)}),
    "breakthrough": Grid(".bw", {"b": BLACK, "w": WHITE}),
    "clobber": Grid(".ox", {"o": WHITE, "x": BLACK}),
    "othello": Grid("-xo", {"x": BLACK, "o": WHITE}),
    "go": Grid("+XO", {"X": BLACK, "O": WHITE}, stones=True),
}
"""The games drawn as a grid; the others show their observation string as it is."""


def rows_of(text: str, grid: Grid) -> list[str] | None:
    """The board's rows in an observation string (row and column labels dropped), or None when
    the text holds no rectangle of cells."""
    rows = []
    for line in text.splitlines():
        row = line.strip().strip("0123456789").replace(" ", "")
        if row and all(c in grid.cells for c in row):
            rows.append(row)
    if not rows or len({len(r) for r in rows}) != 1:
        return None
    return rows


def _piece(char: str, x: float, y: float, grid: Grid) -> str:
    fill = grid.pieces.get(char)
    if fill is None:
        return ""
    r = CELL * 0.4
    if grid.marks and char == "x":
        d = CELL * 0.3
        return (
            f"<path d='M{x - d} {y - d}L{x + d} {y + d}M{x + d} {y - d}L{x - d} {y + d}' "
            f"stroke='{fill}' stroke-width='4' stroke-linecap='round' class='piece x'/>"
        )
    if grid.marks:
        return (
            f"<circle cx='{x}' cy='{y}' r='{CELL * 0.3}' fill='none' stroke='{fill}' "
            "stroke-width='4' class='piece o'/>"
        )
    return f"<circle cx='{x}' cy='{y}' r='{r}' fill='{fill}' stroke='#555' class='piece'/>"


def svg(rows: Sequence[str], grid: Grid) -> str:
    """The grid as SVG: squares with pieces in them, or lines with stones on them."""
    height, width = len(rows), len(rows[0])
    half = CELL / 2
    parts = []
    if grid.stones:
        for i in range(height):
            y = half + i * CELL
            parts.append(f"<line x1='{half}' y1='{y}' x2='{half + (width - 1) * CELL}' y2='{y}'/>")
        for j in range(width):
            x = half + j * CELL
            parts.append(f"<line x1='{x}' y1='{half}' x2='{x}' y2='{half + (height - 1) * CELL}'/>")
    else:
        for i in range(height):
            for j in range(width):
                parts.append(
                    f"<rect x='{j * CELL}' y='{i * CELL}' width='{CELL}' height='{CELL}'/>"
                )
    for i, row in enumerate(rows):
        for j, char in enumerate(row):
            parts.append(_piece(char, half + j * CELL, half + i * CELL, grid))
    return (
        f"<svg class='grid{' stones' if grid.stones else ''}' viewBox='0 0 {width * CELL} "
        f"{height * CELL}' width='{width * CELL}' height='{height * CELL}' role='img' "
        f"aria-label='{height} by {width} board'>{''.join(parts)}</svg>"
    )


def _returns(returns: Sequence[Any], names: Sequence[str]) -> str:
    cells = "".join(
        f"<li>{seat_tag(seat, names)} {float(value):+g}</li>" for seat, value in enumerate(returns)
    )
    return f"<ol class='returns'>{cells}</ol>"


def _drawn(game: str, view: dict[str, Any], text: str, names: Sequence[str]) -> str | None:
    """Chess's board from its FEN; a card game's table from its final state (never before)."""
    if game == "chess":
        return openspiel_chess.board(text)
    returns = view.get("returns")
    if "final" in view and isinstance(returns, list):
        return openspiel_cards.board(game, text, len(returns), names)
    return None


def drawing(game: str) -> str:
    """How the viewer shows `game` (for the games page)."""
    if game in GRIDS:
        return "drawn grid"
    if game == "chess":
        return "drawn chessboard"
    if game in openspiel_cards.PARSERS:
        return "card table at the end"
    return "observation text"


def board(game: str, view: Any, names: Sequence[str]) -> str:
    """The board of one public step of OpenSpiel's `game` (its short name, "tic_tac_toe")."""
    if not isinstance(view, dict):
        view = {}
    grid = GRIDS.get(game)
    text = view.get("final") if "final" in view else view.get("observation")
    parts = []
    if isinstance(text, str):
        rows = rows_of(text, grid) if grid is not None else None
        if rows is not None and grid is not None:
            parts.append(svg(rows, grid))
        drawn = _drawn(game, view, text, names)
        if drawn is not None:
            parts.append(drawn)
        if "final" in view:
            parts.append("<div class='status'>final state</div>")
        parts.append(f"<pre class='observation'>{escape(text)}</pre>")
    else:
        parts.append(
            "<p class='muted hidden-info'>Hidden information: nothing of this game is public "
            "while it is played; the whole final state is shown at the end.</p>"
        )
    if isinstance(view.get("returns"), list):
        parts.append(_returns(view["returns"], names))
    return f"<div class='board openspiel'>{''.join(parts)}</div>"
