"""OpenSpiel's chess drawn from its FEN: an 8x8 checkerboard with Unicode piece glyphs.

Chess's observation string (and its final state) is a FEN; only its first field, the placement,
is drawn, with the side to move under it. Text that is not a FEN is left to the <pre>.
"""

from __future__ import annotations

from collections.abc import Sequence

SQUARE = 40
"""A square's side in SVG units."""
LIGHT, DARK = "#f0d9b5", "#b58863"
GLYPHS = {
    "K": "\u2654", "Q": "\u2655", "R": "\u2656", "B": "\u2657", "N": "\u2658", "P": "\u2659",
    "k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f",
}  # fmt: skip
"""FEN letter -> chess symbol: white's outlined, black's filled."""
NAMES = {"k": "king", "q": "queen", "r": "rook", "b": "bishop", "n": "knight", "p": "pawn"}


def placement(fen: str) -> list[str] | None:
    """The eight ranks of a FEN, eighth rank first, each as eight characters ('.' for an empty
    square), or None when `fen` is not a FEN."""
    fields = fen.strip().split(" ")
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        return None
    rows = []
    for rank in ranks:
        row = ""
        for char in rank:
            if char in "12345678":
                row += "." * int(char)
            elif char in GLYPHS:
                row += char
            else:
                return None
        if len(row) != 8:
            return None
        rows.append(row)
    return rows


def to_move(fen: str) -> str | None:
    """ "white" or "black": whose move the FEN says it is (None if it does not say)."""
    fields = fen.strip().split(" ")
    return {"w": "white", "b": "black"}.get(fields[1]) if len(fields) > 1 else None


def svg(rows: Sequence[str], mover: str | None) -> str:
    """The position as SVG: squares a1 dark, files a-h left to right, white at the bottom."""
    parts = []
    for i, row in enumerate(rows):
        for j, char in enumerate(row):
            x, y = j * SQUARE, i * SQUARE
            fill = LIGHT if (i + j) % 2 == 0 else DARK
            parts.append(
                f"<rect x='{x}' y='{y}' width='{SQUARE}' height='{SQUARE}' fill='{fill}'/>"
            )
            if char != ".":
                side = "white" if char.isupper() else "black"
                square = f"{'abcdefgh'[j]}{8 - i}"
                parts.append(
                    f"<text x='{x + SQUARE / 2:g}' y='{y + SQUARE * 0.78:g}' text-anchor='middle' "
                    f"font-size='{SQUARE * 0.8:g}' class='piece {side}'>"
                    f"<title>{side} {NAMES[char.lower()]} {square}</title>{GLYPHS[char]}</text>"
                )
    edge = 8 * SQUARE
    label = "chess board" + (f", {mover} to move" if mover else "")
    return (
        f"<svg class='chess' viewBox='0 0 {edge} {edge}' width='{edge}' height='{edge}' "
        f"role='img' aria-label='{label}'>{''.join(parts)}</svg>"
    )


def board(fen: str) -> str | None:
    """The drawn position of a FEN, or None when the text is not one."""
    rows = placement(fen)
    return None if rows is None else svg(rows, to_move(fen))
