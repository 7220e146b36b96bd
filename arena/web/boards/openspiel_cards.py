"""A card table for OpenSpiel's poker games at their end: each seat's cards, and the board card.

Drawn only from the final state (`view["final"]`): a hidden-information game's public view holds
nothing while it runs, so no card can be drawn before the end. A final state that does not parse
gives None, and the viewer keeps the <pre> text alone.

- kuhn_poker: `"2 1 bb"`, one card per seat (rank 0 the jack) then the bets;
- leduc_poker: the line `Cards (public player_0 player_1 ...): 4 2 5`, the board card first
  (negative when it was never dealt), card c of rank c // 2 and suit c % 2.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import escape

from arena.web.boards import seat_tag

RANKS = "JQKA"
"""Rank index -> letter: kuhn and leduc use the lowest ranks first (3-seat games add the ace)."""
SUITS = ("\u2660", "\u2665")
"""Leduc's two suits, drawn as spades and hearts (OpenSpiel names them 0 and 1 only)."""
WIDTH, HEIGHT = 36, 52
"""A card's size in SVG units."""


@dataclass(frozen=True, slots=True)
class Card:
    """One face-up card as the table draws it."""

    rank: str
    """The rank's letter, e.g. "K"."""
    suit: str = ""
    """The suit's symbol, or "" in a game without suits (kuhn)."""


@dataclass(frozen=True, slots=True)
class Table:
    """Every seat's hand at the end, and the cards on the board (leduc's public card)."""

    hands: tuple[tuple[Card, ...], ...]
    """Seat -> its cards."""
    board: tuple[Card, ...] = ()
    """The public cards, empty when none was dealt."""


def _rank(index: int) -> str | None:
    return RANKS[index] if 0 <= index < len(RANKS) else None


def kuhn(text: str, seats: int) -> Table | None:
    """Kuhn poker's final state: `seats` cards, then the bets ("p" and "b")."""
    fields = text.split()
    if len(fields) < seats or not all(f.isdigit() for f in fields[:seats]):
        return None
    ranks = [_rank(int(f)) for f in fields[:seats]]
    if any(r is None for r in ranks):
        return None
    return Table(tuple((Card(str(r)),) for r in ranks))


_LEDUC = re.compile(r"^Cards \(public [^)]*\):((?: -?\d+)+) *$", re.MULTILINE)


def leduc(text: str, seats: int) -> Table | None:
    """Leduc poker's final state: its `Cards (public ...)` line, board card first."""
    found = _LEDUC.search(text)
    if found is None:
        return None
    cards = [int(c) for c in found.group(1).split()]
    if len(cards) != seats + 1:
        return None
    parsed = [
        Card(r, SUITS[c % 2]) if c >= 0 and (r := _rank(c // 2)) is not None else None
        for c in cards
    ]
    if any(p is None for p in parsed[1:]):
        return None
    public = parsed[0]
    return Table(
        tuple((p,) for p in parsed[1:] if p is not None), () if public is None else (public,)
    )


PARSERS = {"kuhn_poker": kuhn, "leduc_poker": leduc}
"""The games drawn as a card table at their end."""


def card_svg(card: Card) -> str:
    """One face-up card: a rounded rectangle with its rank and suit."""
    red = " red" if card.suit == "\u2665" else ""
    label = f"{card.rank}{card.suit}"
    return (
        f"<svg class='playing-card{red}' viewBox='0 0 {WIDTH} {HEIGHT}' width='{WIDTH}' "
        f"height='{HEIGHT}' role='img' aria-label='{escape(label)}'>"
        f"<rect x='1' y='1' width='{WIDTH - 2}' height='{HEIGHT - 2}' rx='4' fill='#fff' "
        "stroke='#555'/>"
        f"<text x='{WIDTH / 2}' y='{HEIGHT / 2 + 2}' text-anchor='middle' font-size='18'>"
        f"{escape(card.rank)}</text>"
        f"<text x='{WIDTH / 2}' y='{HEIGHT - 8}' text-anchor='middle' font-size='12'>"
        f"{escape(card.suit)}</text></svg>"
    )


def table_html(table: Table, names: Sequence[str]) -> str:
    """The table: the board's cards, then one row per seat with its name and its cards."""
    rows = []
    if table.board:
        cards = "".join(card_svg(c) for c in table.board)
        rows.append(f"<li class='public'><span class='seat'>board</span> {cards}</li>")
    for seat, hand in enumerate(table.hands):
        cards = "".join(card_svg(c) for c in hand)
        rows.append(f"<li class='hand'>{seat_tag(seat, names)} {cards}</li>")
    return f"<ul class='card-table'>{''.join(rows)}</ul>"


def board(game: str, final: str, seats: int, names: Sequence[str]) -> str | None:
    """The card table of `game`'s final state, or None when the game has none or the text does
    not parse."""
    parse = PARSERS.get(game)
    table = None if parse is None else parse(final, seats)
    return None if table is None else table_html(table, names)
